// Runs the benchmark "suite" (bench.test.js) in the extension host; results → $PI_BENCH_RESULT.
export { run } from "../../test/suite/index";
