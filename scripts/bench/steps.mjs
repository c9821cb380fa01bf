// The named steps of a bench script: each prints its heading, and a step that throws or returns
// { problem } is recorded as failed while the script goes on; the exit code comes from them at the end.

const steps = [];

/** Runs `work` as a step; its value, or null when it failed. */
export async function step(name, work) {
  console.log(`\n▶ ${name}`);
  try {
    const value = await work();
    const problem = value && typeof value === 'object' && 'problem' in value ? value.problem : undefined;
    if (problem) {
      console.log(`  FAILED: ${problem}`);
      steps.push({ name, ok: false, problem });
      return null;
    }
    steps.push({ name, ok: true });
    return value;
  } catch (error) {
    console.log(`  FAILED: ${error.message}`);
    steps.push({ name, ok: false, problem: error.message });
    return null;
  }
}

/** Lists the failed steps on stderr under `script`'s name: the exit code, 1 when any failed. */
export function failedSteps(script) {
  const failed = steps.filter((s) => !s.ok);
  if (failed.length === 0) return 0;
  console.error(`\n${script}: ${failed.length} step(s) failed:`);
  for (const s of failed) console.error(`  - ${s.name}: ${s.problem.split('\n')[0]}`);
  return 1;
}
