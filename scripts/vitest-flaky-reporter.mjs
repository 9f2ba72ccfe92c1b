// Lists every test that passed only on a retry (CI runs with one), so a race shows up in the log
// instead of hiding behind a green run — with what its first attempt failed on, to find the race from the log.
export default class FlakyReporter {
  flaky = [];

  onTestCaseResult(testCase) {
    const diagnostic = testCase.diagnostic();
    if (!diagnostic?.flaky) return;
    const name = `${testCase.module.moduleId.replace(process.cwd() + '/', '')} › ${testCase.fullName}`;
    // The runner keeps the failed attempts' errors on the task after a retry passed.
    const errors = testCase.result().errors ?? testCase.task?.result?.errors ?? [];
    this.flaky.push({ name, errors });
  }

  onTestRunEnd() {
    if (!this.flaky.length) return;
    console.log(`\n⚠ ${this.flaky.length} test(s) passed only on a retry (flaky):`);
    for (const { name, errors } of this.flaky) {
      console.log(`  - ${name}`);
      for (const error of errors.slice(0, 2)) {
        const where = (error.stack ?? '').split('\n').find((line) => line.includes('.test.') || line.includes('test-support'));
        console.log(
          `      first attempt: ${String(error.message ?? error)
            .split('\n')
            .slice(0, 6)
            .join('\n      ')}`,
        );
        if (where) console.log(`      at ${where.trim().replace(/^at /, '')}`);
      }
    }
  }
}
