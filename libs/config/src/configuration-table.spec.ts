import { configurationRows, readConfigurationTable, renderConfigurationTable } from './configuration-table';
import { EnvReader } from './env';
import { byMode, int, PROCESS_NAMES, text, Variable } from './variables';

const A = int('A_MS', 5, 'a timeout');
const B = text('B_DIR', byMode({ standalone: '.data', distributed: '/var/lib' }), 'a folder');
const C = int('C_COUNT', 1, 'a count');

const read = (...variables: Variable<unknown>[]) => variables;

describe('the configuration table', () => {
  it('has a row per variable, in the order read, naming every process that reads it', () => {
    const rows = configurationRows([
      { process: 'gateway', variables: read(A, B) },
      { process: 'billing', variables: read(A) },
      { process: 'generation', variables: read(A, C) },
      { process: 'webhooks', variables: read(A) },
      { process: 'standalone', variables: read(B, C) },
      { process: 'cli', variables: read(B) },
    ]);
    expect(rows).toEqual([
      { variable: 'A_MS', default: '`5`', usedBy: 'distributed services', meaning: 'a timeout' },
      { variable: 'B_DIR', default: '`.data` standalone, `/var/lib` distributed', usedBy: 'standalone, gateway, cli', meaning: 'a folder' },
      { variable: 'C_COUNT', default: '`1`', usedBy: 'standalone, generation', meaning: 'a count' },
    ]);
    expect(configurationRows(PROCESS_NAMES.map((process) => ({ process, variables: [A] })))[0].usedBy).toBe('all, cli');
  });

  it('refuses two declarations of one name', () => {
    expect(() => configurationRows([{ process: 'gateway', variables: [A, int('A_MS', 6, 'again')] }])).toThrow(/A_MS is declared twice/);
  });

  it('is written as Markdown and read back from a document around it', () => {
    const reader = new EnvReader({}, 'gateway');
    reader.readAll({ a: A, b: B });
    const rows = configurationRows([{ process: 'gateway', variables: reader.variablesRead() }]);
    const document = `# Title\n\nText.\n\n${renderConfigurationTable(rows)}\n\nAfter.\n`;
    const table = readConfigurationTable(document);
    expect(table.rows).toEqual(rows);
    expect(document.slice(0, table.start)).toBe('# Title\n\nText.\n\n');
    expect(document.slice(table.end)).toBe('\nAfter.\n');
  });
});
