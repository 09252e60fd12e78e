import { isRefusedValue, isRetryableConflict, retryOnConflict, retryTransient } from './pg-retry';

const pgError = (code: string) => Object.assign(new Error(`pg ${code}`), { code });

/** Work that fails with `code` on every run, and counts its runs. */
function alwaysFailing(code: string) {
  const counted = {
    runs: 0,
    work: async (): Promise<never> => {
      counted.runs += 1;
      throw pgError(code);
    },
  };
  return counted;
}

describe('retryOnConflict', () => {
  it('runs a deadlock victim or a serialization failure again, and returns the run that succeeds', async () => {
    const failures = [pgError('40P01'), pgError('40001')];
    let runs = 0;
    const result = await retryOnConflict(async () => {
      runs += 1;
      const failure = failures.shift();
      if (failure) throw failure;
      return 'done';
    });
    expect(result).toBe('done');
    expect(runs).toBe(3);
  });

  it('gives up after the given number of runs with the last conflict', async () => {
    const deadlocked = alwaysFailing('40P01');
    await expect(retryOnConflict(deadlocked.work, 2)).rejects.toMatchObject({ code: '40P01' });
    expect(deadlocked.runs).toBe(2);
  });

  it('does not run again on any other error', async () => {
    const duplicate = alwaysFailing('23505');
    await expect(retryOnConflict(duplicate.work)).rejects.toMatchObject({ code: '23505' });
    expect(duplicate.runs).toBe(1);
  });

  it('tells conflicts and refused values apart, also inside TypeORM errors (driverError)', () => {
    expect(isRetryableConflict({ driverError: { code: '40001' } })).toBe(true);
    expect(isRetryableConflict(pgError('57P01'))).toBe(false);
    expect(isRefusedValue(pgError('22P02'))).toBe(true);
    expect(isRefusedValue(pgError('23514'))).toBe(true);
    expect(isRefusedValue(pgError('57P01'))).toBe(false);
    expect(isRefusedValue(new Error('no code'))).toBe(false);
  });
});

describe('retryTransient', () => {
  it('runs work again after a lost connection or a restart, within the budget, and returns the run that succeeds', async () => {
    const failures = [Object.assign(new Error('Connection terminated unexpectedly')), pgError('57P03')];
    let runs = 0;
    const result = await retryTransient(async () => {
      runs += 1;
      const failure = failures.shift();
      if (failure) throw failure;
      return 'done';
    });
    expect(result).toBe('done');
    expect(runs).toBe(3);
  });

  it('stops at the budget with the last error', async () => {
    const down = alwaysFailing('57P01');
    const started = Date.now();
    await expect(retryTransient(down.work, { attempts: 10, budgetMs: 150 })).rejects.toMatchObject({ code: '57P01' });
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(down.runs).toBeLessThan(10);
  });

  it('never runs again for an error of the work itself', async () => {
    const duplicate = alwaysFailing('23505');
    await expect(retryTransient(duplicate.work)).rejects.toMatchObject({ code: '23505' });
    expect(duplicate.runs).toBe(1);
  });
});
