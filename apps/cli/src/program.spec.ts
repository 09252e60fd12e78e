import { CommandGroup, CommandSpec, Options } from './context/command-spec';
import { parseAndRun, usage } from './program';

const noop: CommandSpec['run'] = async () => undefined;
const GROUPS: CommandGroup[] = [
  {
    name: 'jobs',
    summary: 'Jobs.',
    commands: {
      fail: {
        summary: 'Fail a job.',
        options: { job: { description: 'job id', required: true }, reason: { description: 'why', required: true }, force: { description: 'even leased', flag: true } },
        run: noop,
      },
    },
  },
  { name: 'credits', summary: 'Credits.', commands: { grant: { summary: 'Grant credits.', options: { amount: { description: 'integer', required: true } }, run: noop } } },
  { name: 'migrate', summary: 'Migrate.', commands: { '': { summary: 'Migrate.', options: { 'create-database': { description: 'create it', flag: true } }, run: noop } } },
];

describe('the operator CLI parser', () => {
  let stdout: string;
  let stderr: string;
  let ran: Array<{ summary: string; options: Options }>;
  const parse = (...argv: string[]) =>
    parseAndRun(argv, GROUPS, async (spec, options) => {
      ran.push({ summary: spec.summary, options });
      return 0;
    });

  beforeEach(() => {
    stdout = '';
    stderr = '';
    ran = [];
    jest.spyOn(process.stdout, 'write').mockImplementation((chunk) => ((stdout += String(chunk)), true));
    jest.spyOn(process.stderr, 'write').mockImplementation((chunk) => ((stderr += String(chunk)), true));
  });
  afterEach(() => jest.restoreAllMocks());

  it('runs a command with its options by their long names, values and flags, --json anywhere', async () => {
    expect(await parse('jobs', 'fail', '--job', 'j1', '--reason', 'stuck', '--force', '--json')).toBe(0);
    expect(ran).toEqual([{ summary: 'Fail a job.', options: { job: 'j1', reason: 'stuck', force: true, json: true } }]);
    expect(await parse('credits', 'grant', '--amount', '-100')).toBe(0);
    expect(ran[1].options.amount).toBe('-100');
    expect(await parse('migrate', '--create-database')).toBe(0);
    expect(ran[2].options['create-database']).toBe(true);
  });

  it('prints every command for --help and one command for <command> --help, exit 0', async () => {
    expect(await parse('--help')).toBe(0);
    expect(stdout).toBe(usage(GROUPS));
    expect(stdout).toContain('jobs fail');
    expect(stdout).toContain('Exit codes');
    stdout = '';
    expect(await parse('jobs', 'fail', '--help')).toBe(0);
    expect(stdout).toContain('--force');
    expect(stdout).not.toContain('credits grant');
    expect(ran).toEqual([]);
  });

  it('refuses a usage error with exit 2, suggesting the command or option meant', async () => {
    expect(await parse('nope')).toBe(2);
    expect(await parse()).toBe(2);
    expect(await parse('jbos', 'fail')).toBe(2);
    expect(stderr).toContain('Did you mean jobs?');
    expect(await parse('jobs', 'fial')).toBe(2);
    expect(stderr).toContain('Did you mean fail?');
    expect(await parse('jobs', 'fail', '--job', 'j1', '--reason', 'x', '--forse')).toBe(2);
    expect(stderr).toContain('Did you mean --force?');
    expect(ran).toEqual([]);
  });

  it('says which required option is missing, with the command help, exit 2', async () => {
    expect(await parse('jobs', 'fail', '--job', 'j1')).toBe(2);
    expect(stderr).toContain('Missing --reason.');
    expect(stderr).toContain('--force');
    expect(ran).toEqual([]);
  });
});
