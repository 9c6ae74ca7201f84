# Two commands do everything on a fresh machine (as root):
#   make demo   install what is missing, build, record the bundled demo Go program
#   make test   install what is missing, build, run every test
BUILD ?= build
JOBS ?= $(shell nproc)

.PHONY: all deps build test demo bench fuzz clean format

all: build

deps:
	@bash scripts/install-deps.sh

build: deps
	@cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

test: build
	@bash scripts/run-tests.sh $(BUILD)

demo: build
	@bash scripts/demo.sh $(BUILD)

bench: build
	@bash scripts/bench.sh $(BUILD)

fuzz: deps
	@bash scripts/fuzz.sh long

clean:
	rm -rf $(BUILD)

format:
	@find cli daemon encoder report proto tests bench -name '*.cc' -o -name '*.h' | xargs clang-format -i
