import { Budgets, judge, machineFactor, TOLERANCE } from '../../bench/guard/verdict';

/** The CPU-per-request guard's verdict (bench/guard/verdict.ts), fed figures like the guard's own runs. */
const budgets: Budgets = {
  reference: { cpuUsPerRequest: 50 },
  routes: { 'standalone GET /api/v1/generations/{id}': { cpuUsPerRequest: 400 }, 'standalone POST /api/v1/generate': { cpuUsPerRequest: 1_000 } },
};
const measured = (route: string, cpuUsPerRequest: number, failed = 0) => ({ route, cpuUsPerRequest, requests: 4_000, failed });

describe('bench:guard verdict', () => {
  it('passes routes within 1.5 times their budget', () => {
    const { pass, verdicts } = judge(budgets, [measured('standalone GET /api/v1/generations/{id}', 590), measured('standalone POST /api/v1/generate', 900)]);
    expect(pass).toBe(true);
    expect(verdicts.map((v) => v.pass)).toEqual([true, true]);
  });

  it('fails a route over 1.5 times its budget, naming it and by how much', () => {
    const { pass, verdicts } = judge(budgets, [measured('standalone GET /api/v1/generations/{id}', 1_000), measured('standalone POST /api/v1/generate', 900)]);
    expect(pass).toBe(false);
    const get = verdicts.find((v) => v.route === 'standalone GET /api/v1/generations/{id}');
    expect(get?.pass).toBe(false);
    expect(get?.factor).toBeCloseTo(2.5);
    expect(get?.line).toBe(
      'FAIL standalone GET /api/v1/generations/{id}: 1000 µs/request over 4000 requests, 2.50x its budget of 400 µs, over the limit of 1.5x by 67 %',
    );
    expect(TOLERANCE).toBe(1.5);
  });

  it('fails a route with answers that were not ok, one missing its budget, and one not measured', () => {
    const { pass, verdicts } = judge(budgets, [measured('standalone GET /api/v1/generations/{id}', 100, 3), measured('standalone GET /api/v1/new-route', 10)]);
    expect(pass).toBe(false);
    expect(verdicts.map((v) => v.line.split(':')[0])).toEqual([
      'FAIL standalone GET /api/v1/generations/{id}',
      'FAIL standalone POST /api/v1/generate',
      'FAIL standalone GET /api/v1/new-route',
    ]);
    expect(verdicts[0].line).toContain('3 of 4000 answers not ok');
    expect(verdicts[1].line).toContain('not measured');
    expect(verdicts[2].line).toContain('no budget');
  });

  it('fails a CPU figure that could not be read', () => {
    expect(judge(budgets, [measured('standalone GET /api/v1/generations/{id}', NaN), measured('standalone POST /api/v1/generate', 900)]).pass).toBe(false);
  });

  it('scales budgets by how much dearer the reference costs now, never tightening them', () => {
    expect(machineFactor(budgets, 100)).toBe(2);
    expect(machineFactor(budgets, 25)).toBe(1);
    expect(machineFactor(budgets, NaN)).toBe(1);
    const slowed = [measured('standalone GET /api/v1/generations/{id}', 1_000), measured('standalone POST /api/v1/generate', 900)];
    expect(judge(budgets, slowed, 2).pass).toBe(true);
    expect(judge(budgets, slowed, 1).pass).toBe(false);
  });
});
