from g2w.io.results_page import markdown_table, write_results_page


def test_results_page_names_its_command_and_commit(tmp_path):
    path = tmp_path / "docs" / "results" / "x.md"
    body = markdown_table(["set", "fps"], [["a", 12.345], ["b|c", 3]])
    write_results_page(path, "Speed", "python benchmarks/x.py", body, notes=["noisy machine"])
    text = path.read_text()
    assert text.startswith("# Speed\n")
    assert "`python benchmarks/x.py` at commit `" in text and "cores" in text
    assert "| a | 12.3 |" in text and "| b\\|c | 3 |" in text and "- noisy machine" in text
    assert not (tmp_path / "docs" / "results" / "x.md.partial").exists()
