// Lists every test that passed only on a retry (CI runs with one), so a race shows up in the log
// instead of hiding behind a green run.
export default class FlakyReporter {
  flaky = [];

  onTestCaseResult(testCase) {
    const diagnostic = testCase.diagnostic();
    if (diagnostic?.flaky) this.flaky.push(`${testCase.module.moduleId.replace(process.cwd() + '/', '')} › ${testCase.fullName}`);
  }

  onTestRunEnd() {
    if (!this.flaky.length) return;
    console.log(`\n⚠ ${this.flaky.length} test(s) passed only on a retry (flaky):`);
    for (const name of this.flaky) console.log(`  - ${name}`);
  }
}
