"""The judge prompt: our own text with exactly two placeholders, and replacement files."""

import pytest

from g2w.evaluate.prompt import PromptError, load_prompt


def test_builtin_prompt_has_the_decision_rules():
    prompt = load_prompt()
    assert prompt.source == "builtin" and len(prompt.sha256) == 64
    text = prompt.text
    for word in (
        '"removed"',
        '"present"',
        '"uncertain"',
        '"none"',
        '"minor"',
        '"major"',
        '"not_applicable"',
        '"preserved"',
        '"minor_change"',
        '"major_change"',
        '"invalid"',
        "anchor",
        "OUTSIDE",
    ):
        assert word in text


def test_render_substitutes_only_the_two_placeholders():
    prompt = load_prompt()
    out = prompt.render(12, '{"images": []}')
    assert "carries 12 images" in out and out.rstrip().endswith('{"images": []}')
    assert "{IMAGE_COUNT}" not in out and '{"elements": [{"sample_id"' in out  # JSON braces kept


def test_prompt_file(tmp_path):
    path = tmp_path / "p.txt"
    path.write_text("Judge {IMAGE_COUNT} images.\n{EVIDENCE_MAPPING_JSON}\n")
    prompt = load_prompt(path)
    assert prompt.source == str(path) and prompt.render(3, "{}") == "Judge 3 images.\n{}\n"
    assert prompt.sha256 != load_prompt().sha256


@pytest.mark.parametrize(
    "text, message",
    [
        ("Judge the images.\n{EVIDENCE_MAPPING_JSON}", "IMAGE_COUNT"),
        ("{IMAGE_COUNT} images", "EVIDENCE_MAPPING_JSON"),
        ("{IMAGE_COUNT} {EVIDENCE_MAPPING_JSON} {IMAGE_CNT}", "unknown placeholder"),
    ],
)
def test_bad_templates_are_refused(tmp_path, text, message):
    path = tmp_path / "p.txt"
    path.write_text(text)
    with pytest.raises(PromptError, match=message):
        load_prompt(path)
