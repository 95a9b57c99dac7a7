// The untrusted-workspace suite's runner (the same mocha runner as test/suite).
export { run } from "../suite/index";
