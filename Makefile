# Two commands: `make demo` runs the main job end to end; `make test` runs the test suite.
# Both create .venv and install everything on first use, and are quick once installed.
SHELL := /bin/bash
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.g2w-installed
DEMO_OUT ?= demo_out

.PHONY: demo test lint install system-deps capture results lock clean

demo: install
	$(VENV)/bin/g2w demo --output $(DEMO_OUT)

test: install lint
	$(PY) -m pytest

# ruff and mypy (configured in pyproject.toml): lint, formatting and types, checked before the tests run.
lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy

install: system-deps $(STAMP)

system-deps:
	@scripts/system-deps.sh $(PYTHON)
	@scripts/capture-deps.sh freedoom freedm

$(STAMP): pyproject.toml requirements.lock
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -qq --disable-pip-version-check -c requirements.lock -e '.[test,bench]'
	$(PY) -m pip install -qq --disable-pip-version-check --no-deps -c requirements.lock rapidocr-onnxruntime  # see pyproject
	@touch $@

# A small real-footage corpus (every supported game); CAPTURE_OUT and CAPTURE_CLIPS override.
CAPTURE_OUT ?= real_corpus
CAPTURE_CLIPS ?= 4
capture: install
	@scripts/capture-deps.sh freedoom freedm cube2
	$(VENV)/bin/g2w capture --all --output $(CAPTURE_OUT) --clips $(CAPTURE_CLIPS)

# Regenerate the docs/results/ pages that this machine can measure (no GPU needed), from a
# fresh capture; each script writes its own page with the command, commit and machine.
BENCH_WORK ?= bench_work
results: capture
	$(PY) benchmarks/s3_reads.py --results docs/results/s3_reads.md
	$(PY) benchmarks/gamecleaner_samplers.py --results docs/results/gamecleaner_samplers.md
	$(PY) benchmarks/curate_cuts.py --corpus $(CAPTURE_OUT) --work $(BENCH_WORK)/cuts --results docs/results/curate_cuts.md
	$(PY) benchmarks/curate_decisions.py $(CAPTURE_OUT)/clean --workdir $(BENCH_WORK)/decisions \
		--weights g2w/weights/curate_decisions.json --results docs/results/curate_decisions.md
	$(PY) benchmarks/long_horizon.py --corpus $(CAPTURE_OUT) --work $(BENCH_WORK)/long --output docs/results/long_horizon.md
	$(PY) benchmarks/trajectories.py --corpus $(CAPTURE_OUT) --work $(BENCH_WORK)/trajectories --results docs/results/trajectories.md
	$(PY) benchmarks/removal_quality.py $(CAPTURE_OUT) --output $(BENCH_WORK)/removal --results docs/results/removal.md \
		--max-cases-per-game 1
	$(PY) benchmarks/mask_rule_ablation.py $(CAPTURE_OUT)/cases.jsonl --results docs/results/mask_rules.md
	$(PY) benchmarks/ui_screen_pairs.py $(CAPTURE_OUT) --output $(BENCH_WORK)/ui_screen_pairs.json --results docs/results/ui_screen.md
	$(PY) benchmarks/capture_speed.py --results docs/results/capture_speed.md
	$(PY) benchmarks/synth_pair.py --workdir $(BENCH_WORK)/synth_pair --results docs/results/synth_pair.md
	$(PY) benchmarks/evaluate_speed.py --workdir $(BENCH_WORK)/evaluate_speed --results docs/results/evaluate_speed.md
	$(PY) benchmarks/calibrate_extraction.py --out $(BENCH_WORK)/extraction --results docs/results/extraction.md
	$(PY) -m g2w.evaluate.calibration --results docs/results/judge_calibration.md
	$(PY) benchmarks/segmenter_clean_fp.py $(CAPTURE_OUT)/cases/* --results docs/results/segmenter_clean_fp.md

# Re-pin every transitive dependency after changing pyproject.toml; the image's lock follows.
lock:
	$(PY) -m pip freeze --exclude-editable > requirements.lock
	$(PY) scripts/image_lock.py

clean:
	rm -rf $(VENV) $(DEMO_OUT) .pytest_cache *.egg-info
