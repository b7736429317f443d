# tactl — every target sets up its own virtualenv (.venv) on first use; only Python >= 3.11 needed.
#   make verify [ALG=strb]   the whole chain for an algorithm (a corpus name, a directory or a file):
#                            verdict table, tactl-report/report.{html,json}; pass outputs cached in .tactl-cache/
#   make check [TA=path.ta]  a verdict for every property of the automaton, all n, t, f (default: our STRB model)
#   make show [TA=path.ta]   summary of a threshold automaton
#   make test                the whole test suite (what CI runs)
#   make docs                the documentation site (MkDocs, Material theme) from docs/ into site/;
#                            make docs-serve serves it at http://127.0.0.1:8000 while you edit
#   make docs-examples       re-run every `<!-- run: CMD -->` example of README.md and docs/*.md and
#                            regenerate docs/reference/cli.md from the Typer app (tools/docs_examples.py;
#                            tests/packaging/test_docs.py fails when a page is stale)
#   make bench               reader and checker timings over the shared benchmarks and our files
#   make bench-peers         tactl side by side with ByMC 2.4.4 per (file, property) of ISOLA'18, its
#                            Promela-generated files, random19 and the generated chain family: both
#                            verdicts, both wall and CPU times, both ratios; builds ByMC first
#                            (tools/build_bymc.sh: Debian OCaml packages, the source at a pinned
#                            commit, our tools/bymc/*.patch) into ~/.cache/tactl/bymc.
#                            PEERS_TIMEOUT=300 (s, each tool), PEERS_FILTER=regex (GROUP/FILE:PROPERTY),
#                            BYMC_SRC=local clone of konnov/bymc. Not part of make test (it takes hours).
#   make fuzz                differential fuzzing of the front ends: random well-formed .alg programs (every
#                            construct of docs/alg.md) and edits of the public .pml files, each checked by
#                            the parametric engine at one small valuation and by a reference reading
#                            (--engine source when this tactl has it, else explicit as a stand-in), per
#                            property; prints a table per construct (agree, disagree, refused, error,
#                            unknown) and saves every disagreement with both outputs in fuzz-out/.
#                            FUZZ_MINUTES=10, FUZZ_SEED=<random>, FUZZ_TIMEOUT=60 (s per tactl check).
#                            Not part of make test (tests/frontends/test_fuzz_frontends.py runs a small budget).
#   make random19            fetch the random19 automata (konnov/fault-tolerant-benchmarks) into
#                            ~/.cache/tactl/benchmarks/random19 for make bench's random19 table
#   make spin13              fetch the experts' hand-written Promela models (spin13/ of the same
#                            repository) into ~/.cache/tactl/benchmarks/spin13 for the spin13 table
#   make isola18-promela     fetch ByMC's ISOLA'18 Parametric Promela models (isola18/promela/ of the
#                            same repository) into ~/.cache/tactl/benchmarks/isola18-promela for
#                            make bench's promela table (ISOLA18_PROMELA_URL=a local clone or mirror)
#   make ftb-promela         fetch the Parametric Promela files of the six sets of the same repository
#                            (fmcad13, spin13/parameterized, concur14, cav15/promela, popl17-fmsd17/promela,
#                            isola18/promela) into ~/.cache/tactl/benchmarks/ftb-promela, each under its
#                            own path, for make bench's promela-sets table (FTB_PROMELA_URL=a clone or mirror)
#   make sarif-schema        fetch the SARIF 2.1.0 JSON schema (not on PyPI) into ~/.cache/tactl/ for the
#                            tests that validate --sarif output against it (make tools runs it;
#                            SARIF_SCHEMA_URL=another place); offline, that validation skips loudly
#   make opodis17            fetch the OPODIS'17 synthesis benchmarks (opodis17/ta/ of the same repository:
#                            14 automata with unknown threshold coefficients) into
#                            ~/.cache/tactl/benchmarks/opodis17 for make bench's synt table (OPODIS17_URL=a clone or mirror)
#   make taco-resets         fetch TACO's reset benchmarks (benchmarks/reset-benchmarks/*.eta of pleich/TACO)
#                            into ~/.cache/tactl/benchmarks/taco-resets for make bench's taco-resets table
#                            (TACO_URL=a local clone or mirror; or set TACTL_TACO to a TACO checkout)
#   make taco-generated      fetch ByMC's generated ISOLA'18 automata as TACO publishes them
#                            (benchmarks/ByMC/isola18/promela/*.ta of pleich/TACO: cc_case2/3/4 ...) into
#                            ~/.cache/tactl/benchmarks/taco-generated for make bench's large table
#   make taco-tla            fetch TACO's TLA+ examples (examples/tla/*.tla of pleich/TACO) into
#                            ~/.cache/tactl/benchmarks/taco-tla, and lmcs20/ of konnov/fault-tolerant-benchmarks
#                            (Tendermint_1round_safety.tla and its .ta twin) into .../lmcs20, for the TLA+
#                            tests and make bench's tla table (TACO_URL, LMCS20_URL=a local clone or mirror)

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp
TA     ?= corpus/strb/strb.ta
ALG    ?= strb

.PHONY: all verify check show test docs docs-serve docs-examples bench bench-peers fuzz random19 spin13 isola18-promela ftb-promela opodis17 taco-resets taco-generated taco-tla clean tools graphviz sarif-schema

all: test

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)' \
	  || { echo "tactl needs Python >= 3.11 (found: $$($(PYTHON) --version 2>&1)); set PYTHON=..." >&2; exit 1; }
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[test]'
	@# Bytecode for the editable sources, as pip writes it for an installed wheel: with
	@# PYTHONDONTWRITEBYTECODE set (as on our machines) every tactl process would otherwise
	@# compile its modules again (~70 ms of each start; stale files are ignored by Python).
	@$(BIN)/python -m compileall -q tactl ir passes >/dev/null
	@touch $@

check: $(STAMP)
	@$(BIN)/tactl check $(TA) || { s=$$?; echo "tactl check: exit status $$s (1 violated, 2 bad input, 3 unknown or unsupported)" >&2; exit $$s; }

show: $(STAMP)
	$(BIN)/tactl show $(TA)

# External programs the tests run for real: Graphviz's dot (pictures), and the model checkers SPIN
# (with gcc, for its pan verifiers) and NuSMV. dot, spin and gcc are installed from Debian when
# missing and we are root; NuSMV 2.5.4 is built from source by tools/build_nusmv.sh (1-3 minutes,
# once) into ~/.cache/tactl/nusmv, outside the checkout (TACTL_TOOLS overrides the place); see
# tools/install_checkers.sh. Whatever cannot be had, the tests that need it skip and say why.
graphviz:
	@command -v dot >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing graphviz (for tactl dot -o X.svg, the verify report's picture, and their tests)"; \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq graphviz >/dev/null) \
	      || echo "WARNING: could not install graphviz; the picture tests will be skipped" >&2; \
	  else echo "WARNING: graphviz's dot is missing and cannot be installed here; picture tests skip" >&2; fi; }

# Headless Chromium (Debian's chromium) renders the HTML report of `tactl verify` for
# tests/report/test_report_browser.py; tools/install_browser.sh installs it when missing and we are root.
# VS Code's TextMate tokeniser (npm, into editors/vscode/node_modules, git-ignored) checks the
# grammars in tests/cli/test_textmate_grammar.py; tools/install_vscode_tokeniser.sh.
tools: graphviz sarif-schema
	@bash tools/install_checkers.sh
	@bash tools/install_browser.sh
	@bash tools/install_vscode_tokeniser.sh

# The SARIF 2.1.0 schema for tests/report/test_ci_sarif.py (tools/fetch_sarif_schema.sh: never
# committed, a no-op once in the cache, a loud warning and exit 0 when offline).
sarif-schema:
	@PYTHON=$(PYTHON) bash tools/fetch_sarif_schema.sh

# 2>&1: the progress lines go where the table goes, so `make verify ALG=corpus > log` has them in
# the log as the run goes on (stderr is then no terminal: one line per started and finished item)
verify: $(STAMP) graphviz
	@$(BIN)/tactl verify $(ALG) 2>&1 || { s=$$?; echo "tactl verify: exit status $$s (1 violated, 2 bad input, 3 unknown or unsupported)" >&2; exit $$s; }

# -n auto: one pytest worker per core, each test file in one worker (--dist loadfile keeps a
# file's module-level fixtures and its tmp files together); `pytest tests/engines/test_eltl.py` alone stays serial.
test: $(STAMP) tools
	$(BIN)/python -m pytest -n auto --dist loadfile

# The documentation: mkdocs and mkdocs-material come with the test extra (and the docs extra).
docs: $(STAMP)
	$(BIN)/mkdocs build --strict -d site

docs-serve: $(STAMP)
	$(BIN)/mkdocs serve

docs-examples: $(STAMP)
	$(BIN)/python tools/docs_examples.py -j 2

bench: $(STAMP)
	$(BIN)/python -m tactl.bench

FUZZ_MINUTES ?= 10
FUZZ_SEED    ?=
FUZZ_TIMEOUT ?= 60
fuzz: $(STAMP)
	$(BIN)/python -m tactl.bench.fuzz --minutes $(FUZZ_MINUTES) --timeout $(FUZZ_TIMEOUT) $(if $(FUZZ_SEED),--seed $(FUZZ_SEED))

# ByMC is built from its public source (never copied into the repository) with our small patches;
# tools/build_bymc.sh installs the Debian packages it needs when missing and we are root.
PEERS_TIMEOUT ?= 300
PEERS_FILTER  ?=
bench-peers: $(STAMP)
	@bash tools/build_bymc.sh
	$(BIN)/python -m tactl.bench --only peers --timeout $(PEERS_TIMEOUT) $(if $(PEERS_FILTER),--peers-filter '$(PEERS_FILTER)')

# Benchmarks of konnov/fault-tolerant-benchmarks (public; never copied into the repository):
# $(call fetch_folder,FOLDER,URL,MUST_EXIST[,FROM]) clones URL shallowly into a temporary folder, copies
# its FOLDER/ (or FROM/) next to the cache and renames it into place in one step.
BENCH_CACHE    := $(HOME)/.cache/tactl/benchmarks
RANDOM19_URL   ?= https://github.com/konnov/fault-tolerant-benchmarks
# The hand-written Promela models of the SPIN'13 experiments, from the same repository (or a
# local clone or mirror).
SPIN13_URL     ?= $(RANDOM19_URL)
# ByMC's Parametric Promela sources of the ISOLA'18 automata (aba, bosco, cc, ..., nbacr), from
# which it generated ../shared/benchmarks/bymc-isola18-generated/ (git accepts a local path too).
ISOLA18_PROMELA_URL ?= $(RANDOM19_URL)
# TACO's extended threshold automata with resets (git accepts a local path too).
TACO_URL       ?= https://github.com/pleich/TACO
# The TLA+ Tendermint model and its .ta twin (lmcs20/), from the same repository as random19.
LMCS20_URL     ?= $(RANDOM19_URL)
# The Parametric Promela files of the six sets of the same repository (tactl/bench/promela_sets.py).
# The OPODIS'17 synthesis benchmarks, from the same repository (tactl/bench/opodis17.py).
OPODIS17_URL   ?= $(RANDOM19_URL)
FTB_PROMELA_URL ?= $(RANDOM19_URL)
FTB_PROMELA_SETS := fmcad13 spin13/parameterized concur14 cav15/promela popl17-fmsd17/promela isola18/promela
# ($(4), when given, is the clone's folder to copy; else FOLDER itself. $(5), when given, is a list
# of the clone's folders, each copied under its own path, and MUST_EXIST may list several.)
define fetch_folder
	@set -e; tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
	  if ! git clone --quiet --depth 1 "$(2)" "$$tmp/src"; then \
	    echo "make $(1): git clone of $(2) failed (offline? git also clones a local clone or mirror: see the URL variables above)" >&2; exit 1; fi; \
	  for d in $(3); do test -d "$$tmp/src/$$d" || { echo "make $(1): the clone has no $$d/" >&2; exit 1; }; done; \
	  mkdir -p "$(BENCH_CACHE)"; \
	  stage=$$(mktemp -d "$(BENCH_CACHE)/.$(1).XXXXXX"); \
	  $(if $(5),for d in $(5); do mkdir -p "$$stage/$$d"; cp -R "$$tmp/src/$$d/." "$$stage/$$d/"; done,cp -R "$$tmp/src/$(if $(4),$(4),$(1))/." "$$stage/"); chmod 755 "$$stage"; \
	  rm -rf "$(BENCH_CACHE)/$(1).old"; \
	  if [ -e "$(BENCH_CACHE)/$(1)" ]; then mv "$(BENCH_CACHE)/$(1)" "$(BENCH_CACHE)/$(1).old"; fi; \
	  mv "$$stage" "$(BENCH_CACHE)/$(1)"; rm -rf "$(BENCH_CACHE)/$(1).old"
endef

random19:
	$(call fetch_folder,random19,$(RANDOM19_URL),random19)
	@echo "random19 automata in $(BENCH_CACHE)/random19 ($$(ls "$(BENCH_CACHE)/random19"/*.ta | wc -l) files)"

spin13:
	$(call fetch_folder,spin13,$(SPIN13_URL),spin13/fixed-size)
	@echo "spin13 models in $(BENCH_CACHE)/spin13 ($$(ls "$(BENCH_CACHE)/spin13/fixed-size" | wc -l) fixed-size files)"

isola18-promela:
	$(call fetch_folder,isola18-promela,$(ISOLA18_PROMELA_URL),isola18/promela,isola18/promela)
	@echo "ISOLA'18 Promela models in $(BENCH_CACHE)/isola18-promela ($$(ls "$(BENCH_CACHE)/isola18-promela"/*.pml | wc -l) files)"

ftb-promela:
	$(call fetch_folder,ftb-promela,$(FTB_PROMELA_URL),$(FTB_PROMELA_SETS),,$(FTB_PROMELA_SETS))
	@echo "Parametric Promela sets in $(BENCH_CACHE)/ftb-promela ($$(find "$(BENCH_CACHE)/ftb-promela" -name '*.pml' | wc -l) files)"

opodis17:
	$(call fetch_folder,opodis17,$(OPODIS17_URL),opodis17/ta,opodis17/ta)
	@echo "OPODIS'17 synthesis benchmarks in $(BENCH_CACHE)/opodis17 ($$(ls "$(BENCH_CACHE)/opodis17"/*.ta | wc -l) files)"

taco-resets:
	$(call fetch_folder,taco-resets,$(TACO_URL),benchmarks/reset-benchmarks,benchmarks/reset-benchmarks)
	@echo "TACO's reset benchmarks in $(BENCH_CACHE)/taco-resets ($$(ls "$(BENCH_CACHE)/taco-resets"/*.eta | wc -l) files)"

taco-generated:
	$(call fetch_folder,taco-generated,$(TACO_URL),benchmarks/ByMC/isola18/promela,benchmarks/ByMC/isola18/promela)
	@echo "ByMC's generated ISOLA'18 automata (TACO's copy) in $(BENCH_CACHE)/taco-generated ($$(ls "$(BENCH_CACHE)/taco-generated"/*.ta | wc -l) files)"

taco-tla:
	$(call fetch_folder,taco-tla,$(TACO_URL),examples/tla,examples/tla)
	$(call fetch_folder,lmcs20,$(LMCS20_URL),lmcs20,lmcs20)
	@echo "TACO's TLA+ examples in $(BENCH_CACHE)/taco-tla ($$(ls "$(BENCH_CACHE)/taco-tla"/*.tla | wc -l) files), lmcs20 in $(BENCH_CACHE)/lmcs20"

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis build *.egg-info .tactl-cache tactl-report site
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
