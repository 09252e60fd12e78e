import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';

const ROOT = join(__dirname, '..', '..');
const DOCUMENT = join(ROOT, 'docs', 'design', 'messages.asyncapi.yaml');

function check(...args: string[]) {
  const result = spawnSync(process.execPath, [join(ROOT, 'tools', 'contracts', 'check.mjs'), ...args], { encoding: 'utf8', timeout: 120_000 });
  return { code: result.status, output: `${result.stdout}${result.stderr}` };
}

/** `npm run contracts:check` (CI's step) passes the committed document and fails a broken one. */
describe('contracts:check (tools/contracts/check.mjs)', () => {
  let work: string;
  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), 'contract-check-'));
  });
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  /** A copy of the committed document after `change`, written to the work folder. */
  function edited(name: string, change: (document: Record<string, any>) => void): string {
    const document = parse(readFileSync(DOCUMENT, 'utf8')) as Record<string, any>;
    change(document);
    const path = join(work, name);
    writeFileSync(path, stringify(document));
    return path;
  }

  it('passes the committed document against the newest released contract', () => {
    const result = check();
    expect(result).toMatchObject({ code: 0 });
    expect(result.output).toContain('breaks nothing against release/contracts/1.0.0.asyncapi.yaml');
  }, 130_000);

  it('fails a document the AsyncAPI parser finds an error in', () => {
    const path = edited('dangling.yaml', (d) => (d.channels.billing_reserve.messages.reply = { $ref: '#/components/messages/NoSuchMessage' }));
    const result = check(path);
    expect(result.code).toBe(1);
    expect(result.output).toMatch(/dangling\.yaml:\d+: /);
  }, 130_000);

  it('fails a breaking change with one line naming the subject, the field and the rule', () => {
    const path = edited('breaking.yaml', (d) => delete d.components.schemas.ReserveCreditsReplyPayload.properties.holdId);
    const result = check(path);
    expect(result.code).toBe(1);
    expect(result.output).toContain('breaking change against release/contracts/1.0.0.asyncapi.yaml: billing.reserve reply: holdId: removed-field: ');
  }, 130_000);
});
