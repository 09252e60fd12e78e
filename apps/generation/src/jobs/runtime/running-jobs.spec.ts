import type { CatalogueService } from '../../catalogue/catalogue.service';
import type { GenerationSettings } from '../../config/generation.tokens';
import type { JobEntity } from '../job.entity';
import { LEASE_LOST, Pool, Run, RunningJobs } from './running-jobs';

describe('RunningJobs: the runs of a process and the slots of its two pools', () => {
  const settings = { workerConcurrency: 2, providerConcurrency: 3, providerParking: true } as GenerationSettings;
  const running = () => new RunningJobs({} as CatalogueService, settings);
  const run = (id: string, pool: Pool): Run => ({ job: { id } as JobEntity, kind: 'claim', pool, abort: new AbortController(), done: Promise.resolve(), upstreamRef: null });

  it('a run holds a slot of its pool until it is removed, and each removal is told with its pool', () => {
    const jobs = running();
    const freed: Pool[] = [];
    jobs.onFreed((pool) => freed.push(pool));
    const a = run('a', 'cpu');
    const b = run('b', 'io');
    jobs.add(a);
    jobs.add(b);
    expect([jobs.free('cpu'), jobs.free('io'), jobs.freeForChecks()]).toEqual([1, 2, 2]);
    expect(jobs.ids()).toEqual(['a', 'b']);
    jobs.remove(b);
    jobs.remove(a);
    expect([jobs.free('cpu'), jobs.free('io'), jobs.has('a')]).toEqual([2, 3, false]);
    expect(freed).toEqual(['io', 'cpu']);
  });

  it('a stale run of a job replaced by a new claim frees its slot without dropping the new run', () => {
    const jobs = running();
    const stale = run('a', 'cpu');
    const fresh = run('a', 'cpu');
    jobs.add(stale);
    jobs.abort('a', LEASE_LOST);
    jobs.add(fresh);
    expect(stale.abort.signal.reason).toBe(LEASE_LOST);
    jobs.remove(stale);
    expect(jobs.get('a')).toBe(fresh);
    expect(jobs.free('cpu')).toBe(1);
  });

  it('a worker promised to an admission counts in both pools until unreserved; none once closed', () => {
    const jobs = running();
    expect(jobs.reserve()).toBe(true);
    expect([jobs.free('cpu'), jobs.free('io')]).toEqual([1, 2]);
    expect(jobs.reserve()).toBe(true);
    expect(jobs.reserve()).toBe(false); // no CPU worker left
    jobs.unreserve();
    jobs.close();
    expect(jobs.isClosed).toBe(true);
    expect(jobs.reserve()).toBe(false);
    expect(jobs.freeForChecks()).toBe(0);
  });
});
