# kernelclf: one command to build the book, one to run the tests.
#   make book   - set up (first time), then a clean build of the website into _build/html
#   make test   - unit tests + every chapter under nbval + the estimator tests without numba
#                 + clean book build + browser test
#                 (the build reuses nbval's executions; a time per stage is printed at the end)
#   make check  - the quick loop: lint, unit tests, and the chapters changed against main
#   make lab    - JupyterLab on the reader notebooks (make notebooks writes them into book/)
#   make numbers - every number typed on a page, by class; lists those neither computed,
#                 quoted, a parameter nor structural (kernelclf.book.typed_numbers)
#   make serve  - serve the built site on http://127.0.0.1:8000 (its in-browser lab needs HTTP)
# Every target depends on `setup`, so a fresh clone needs nothing else.

PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.kernelclf-setup
VENDOR := _extra/_static/vendor
# the widget manager asks for its icon fonts relative to the page (pages live in book/)
WIDGET_FONTS := _extra/book/@jupyter-widgets/html-manager/dist
HTML   := _build/html
JB_FLAGS := -W -n --keep-going

# The data home: an explicit KERNELCLF_DATA wins; a checkout next to ../shared/data uses it.
ifeq ($(origin KERNELCLF_DATA), undefined)
  ifneq ($(wildcard ../shared/data/README.md),)
    export KERNELCLF_DATA := $(abspath ../shared/data)
  endif
endif
# OpenBLAS chooses its kernels by CPU, and their round-off differs: the committed result
# files and the chapters' exact checks (billiard records, fixed-point comparisons) are
# reproduced with its Haswell (AVX2) kernels. On a CPU with AVX2 every target asks for those
# kernels (an explicit OPENBLAS_CORETYPE wins), so a machine where OpenBLAS would pick its
# AVX-512 (SkylakeX) kernels reproduces the records bit for bit.
ifeq ($(origin OPENBLAS_CORETYPE), undefined)
  ifneq ($(shell grep -m1 -ow avx2 /proc/cpuinfo 2>/dev/null),)
    export OPENBLAS_CORETYPE := Haswell
  endif
endif
# The in-browser lab's Pyodide: an explicit KERNELCLF_PYODIDE wins; a checkout next to
# ../shared/pyodide-0.27.7 uses it (fully offline site); otherwise the CDN release.
ifeq ($(origin KERNELCLF_PYODIDE), undefined)
  ifneq ($(wildcard ../shared/pyodide-0.27.7/pyodide-lock.json),)
    export KERNELCLF_PYODIDE := $(abspath ../shared/pyodide-0.27.7)
  endif
endif
export PYDEVD_DISABLE_FILE_VALIDATION := 1
# The test lanes run side by side (pytest -n auto): one BLAS/OpenMP thread each, as .ci/run
# sets, so that two lanes do not run four threads on two cores (an explicit setting wins)
test check check-chapter unit unit-no-numba nbval site-test: export OMP_NUM_THREADS ?= 1
test check check-chapter unit unit-no-numba nbval site-test: export OPENBLAS_NUM_THREADS ?= 1
test check check-chapter unit unit-no-numba nbval site-test: export MKL_NUM_THREADS ?= 1
# executed chapters store no progress bars (kernelclf.progress); `make lab` keeps them
book book-build check-chapter nbval test check: export KERNELCLF_PROGRESS := 0

.PHONY: setup vendor book book-build lab serve notebooks test check lint unit unit-no-numba nbval site-test bench check-chapter clean numbers

setup: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[fast,book,test]'
	$(BIN)/python .ci/lab_settings.py
	$(BIN)/python -m kernelclf.book.lite wheels >/dev/null
	$(BIN)/python -m kernelclf.compile --quiet
	touch $@

# MathJax, require.js and the widget manager from npm, served by the site itself.
vendor: setup
	@if [ -f $(VENDOR)/require.js ]; then :; \
	elif command -v npm >/dev/null 2>&1; then \
	  echo "vendoring MathJax and the widget manager from npm"; \
	  npm install --silent --no-audit --no-fund --no-save --ignore-scripts --prefix .vendor-npm \
	    @jupyter-widgets/html-manager@1.0.6 requirejs@2.3.8 mathjax@3.2.2 && \
	  mkdir -p $(VENDOR)/html-manager && \
	  cp .vendor-npm/node_modules/requirejs/require.js $(VENDOR)/require.js && \
	  cp -r .vendor-npm/node_modules/@jupyter-widgets/html-manager/dist/. $(VENDOR)/html-manager/ && \
	  rm -f $(VENDOR)/html-manager/*.map && \
	  cp -r .vendor-npm/node_modules/mathjax/es5 $(VENDOR)/mathjax && \
	  mkdir -p $(WIDGET_FONTS) && \
	  cp $(VENDOR)/html-manager/*.woff* $(VENDOR)/html-manager/*.ttf $(VENDOR)/html-manager/*.eot \
	     $(VENDOR)/html-manager/*.svg $(WIDGET_FONTS)/; \
	else echo "npm not found: the book will load MathJax and the widget manager from their CDNs"; fi

# _config.yml names the vendored files; without them build with a CDN variant.
CONFIG_ARG = $(if $(wildcard $(VENDOR)/require.js),,--config _build/_config_cdn.yml)

_build/_config_cdn.yml: _config.yml
	mkdir -p _build
	$(BIN)/python .ci/cdn_config.py _config.yml $@

book: setup vendor
	rm -rf _build
	$(MAKE) --no-print-directory book-build

# The build into an existing _build: chapters whose execution is in _build/.jupyter_cache
# (execute_notebooks: cache; `make test` files nbval's executions there) are not run again.
book-build: setup vendor
	@$(if $(CONFIG_ARG),$(MAKE) --no-print-directory _build/_config_cdn.yml)
	$(BIN)/jupyter-book build . $(JB_FLAGS) $(CONFIG_ARG)
	$(BIN)/python .ci/executed_notebooks.py _build/.jupyter_cache book _build/jupyter_execute/book
	$(BIN)/python -m kernelclf.book.reader --book book -o $(HTML)/_notebooks _build/jupyter_execute/book/*.ipynb
	$(BIN)/python -m kernelclf.book.lite build --html $(HTML)
	@echo "The book is in $(HTML)/index.html; reader notebooks (executed) in $(HTML)/_notebooks/;"
	@echo "the in-browser lab in $(HTML)/lite/ (make serve, then open http://127.0.0.1:8000)"

# The site over HTTP (the in-browser lab does not work from file://)
serve:
	@test -f $(HTML)/index.html || (echo "build the book first: make book" && exit 2)
	$(PYTHON) -m http.server --bind 127.0.0.1 --directory $(HTML) 8000

# Build one chapter (with the preface and references) into a temporary folder: CH=04_support_vector_machines
check-chapter: setup vendor
	@test -n "$(CH)" || (echo "usage: make check-chapter CH=NN_name" && exit 2)
	@tmp=$$(mktemp -d); \
	printf 'format: jb-book\nroot: book/00_preface\nchapters:\n  - file: book/%s\n  - file: book/references\n' "$(CH)" > $$tmp/_toc.yml; \
	$(BIN)/jupyter-book build . --toc $$tmp/_toc.yml --path-output $$tmp $(JB_FLAGS) && \
	$(BIN)/python .ci/executed_notebooks.py $$tmp/_build/.jupyter_cache book $$tmp/_build/jupyter_execute/book >/dev/null && \
	$(BIN)/python -m kernelclf.book.reader --book book -o $$tmp/_build/html/_notebooks \
	  $$tmp/_build/jupyter_execute/book/*.ipynb >/dev/null && \
	echo "OK: $$tmp/_build/html"

# JupyterLab on the reader notebooks (MyST rendered as plain Markdown, solutions folded);
# the MyST sources beside them still open as notebooks too (for editing the book).
lab: notebooks
	$(BIN)/jupyter lab --notebook-dir=book --LabApp.default_url=/lab/tree/00_preface.ipynb \
	  $(if $(filter 0,$(shell id -u)),--allow-root,)

# Reader notebooks book/NN_name.ipynb from the MyST chapters (git-ignored, not executed)
notebooks: setup
	$(BIN)/python -m kernelclf.book.reader -o book book/*.md >/dev/null
	@echo "wrote the reader notebooks book/*.ipynb (git-ignored)"

unit: setup
	$(BIN)/python -m pytest -m "not browser" tests

# The estimator tests once more with numba hidden (kernelclf._jit): every module runs its
# NumPy twin, as in the in-browser lab and in an install without the `fast` extra.
NO_NUMBA_TESTS := tests/test_no_numba.py tests/test_common.py tests/test_bad_input.py \
  tests/test_svm.py tests/test_smo.py tests/test_svr.py tests/test_rmm.py tests/test_multiclass.py \
  tests/test_billiard_experiments.py
unit-no-numba: setup
	KERNELCLF_NO_NUMBA=1 $(BIN)/python -m pytest -m "not browser" -p no:cacheprovider \
	  $(PYTEST_ARGS) $(NO_NUMBA_TESTS)

nbval: setup
	$(BIN)/python -m pytest -p no:cacheprovider --nbval-lax book

site-test: setup
	$(BIN)/python .ci/ensure_chromium.py
	$(BIN)/python -m pytest -m browser -rfEP --durations=25 tests/test_site.py tests/test_lab.py tests/test_lite.py

lint: setup
	$(BIN)/ruff check kernelclf tests benchmarks conftest.py .ci

# unit tests and chapters share the cores; --dist loadscope keeps a notebook's cells in one worker.
# nbval writes each chapter it ran without error to _build/nbval (conftest.py); those executions
# are filed in the build's jupyter-cache (.ci/nbval_cache.py), so the build does not run them
# again (a chapter whose code differs from what nbval ran is executed by the build).
NBVAL_SAVE := _build/nbval
test: setup vendor
	@rm -rf _build
	@$(BIN)/python .ci/stages.py \
	  "lint=$(MAKE) --no-print-directory lint" \
	  "unit+nbval=KERNELCLF_NBVAL_SAVE=$(NBVAL_SAVE) $(BIN)/python -m pytest -m 'not browser' --nbval-lax -p no:cacheprovider -n auto --dist loadscope --durations=20 tests book" \
	  "no-numba=$(MAKE) --no-print-directory unit-no-numba PYTEST_ARGS='-q -n auto'" \
	  "cache=$(BIN)/python .ci/nbval_cache.py $(NBVAL_SAVE) _build/.jupyter_cache book" \
	  "book=$(MAKE) --no-print-directory book-build" \
	  "site-test=$(MAKE) --no-print-directory site-test"

# The quick loop: lint, unit tests, and only the chapters that differ from main (committed or
# not, or new; .ci/changed_chapters.py) under nbval. KERNELCLF_BASE=<ref> compares with another ref.
CHANGED = $(shell $(BIN)/python .ci/changed_chapters.py)
check: setup lint
	$(BIN)/python -m pytest -m "not browser" --nbval-lax -p no:cacheprovider -n auto --dist loadscope tests $(CHANGED)

# The typed-number convention: per-page counts and every unclassified number as
# page:line: token … context (exit status 1 if there is one). PAGES=book/04_*.md for some.
numbers: setup
	$(BIN)/python -m kernelclf.book.typed_numbers $(PAGES)

bench: setup
	$(BIN)/python -m benchmarks

clean:
	rm -rf _build .vendor-npm _extra book/*.ipynb
