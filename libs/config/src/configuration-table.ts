import { PROCESS_NAMES, ProcessName, Variable } from './variables';

/** The variables one process read at start-up (EnvReader.variablesRead()). */
export interface ProcessReading {
  process: ProcessName;
  variables: readonly Variable<unknown>[];
}

/** One row of the README's configuration table. */
export interface ConfigurationRow {
  variable: string;
  default: string;
  usedBy: string;
  meaning: string;
}

export const CONFIGURATION_TABLE_HEADER = ['variable', 'default', 'used by', 'meaning'] as const;

const SERVERS: readonly ProcessName[] = ['standalone', 'gateway', 'billing', 'generation', 'webhooks'];
const SERVICES: readonly ProcessName[] = ['gateway', 'billing', 'generation', 'webhooks'];

function usedBy(processes: ReadonlySet<ProcessName>): string {
  const cli = processes.has('cli') ? ['cli'] : [];
  if (SERVERS.every((p) => processes.has(p))) return ['all', ...cli].join(', ');
  if (SERVICES.every((p) => processes.has(p)) && !processes.has('standalone')) return ['distributed services', ...cli].join(', ');
  return PROCESS_NAMES.filter((p) => processes.has(p)).join(', ');
}

/**
 * The table's rows from what each process read: one row per variable, in the order the processes
 * read them. Two declarations with one name are refused (one decision, one place).
 */
export function configurationRows(readings: readonly ProcessReading[]): ConfigurationRow[] {
  const readers = new Map<Variable<unknown>, Set<ProcessName>>();
  const names = new Map<string, Variable<unknown>>();
  for (const reading of readings) {
    for (const variable of reading.variables) {
      const other = names.get(variable.name);
      if (other && other !== variable) throw new Error(`${variable.name} is declared twice`);
      names.set(variable.name, variable);
      const processes = readers.get(variable) ?? new Set<ProcessName>();
      processes.add(reading.process);
      readers.set(variable, processes);
    }
  }
  return [...readers].map(([variable, processes]) => ({
    variable: variable.name,
    default: variable.fallback.text,
    usedBy: usedBy(processes),
    meaning: variable.description,
  }));
}

/** The rows as a Markdown table, header included. */
export function renderConfigurationTable(rows: readonly ConfigurationRow[]): string {
  const line = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
  return [
    line(CONFIGURATION_TABLE_HEADER),
    `|${CONFIGURATION_TABLE_HEADER.map(() => '---').join('|')}|`,
    ...rows.map((row) => line([`\`${row.variable}\``, row.default, row.usedBy, row.meaning])),
  ].join('\n');
}

/** The rows of the Markdown table that starts with `header` in `markdown` (cells trimmed, backticks kept). */
export function readConfigurationTable(markdown: string): { start: number; end: number; rows: ConfigurationRow[] } {
  const lines = markdown.split('\n');
  const first = lines.findIndex((l) => l.startsWith(`| ${CONFIGURATION_TABLE_HEADER.join(' | ')} |`));
  if (first < 0) throw new Error(`no table with the header "${CONFIGURATION_TABLE_HEADER.join(' | ')}"`);
  let last = first + 2;
  while (last < lines.length && lines[last].startsWith('|')) last++;
  const rows = lines.slice(first + 2, last).map((l) => {
    const cells = l.slice(1, -1).split(' | ').map((c) => c.trim());
    return { variable: cells[0].replace(/^`|`$/g, ''), default: cells[1], usedBy: cells[2], meaning: cells.slice(3).join(' | ') };
  });
  const offset = (index: number) => lines.slice(0, index).reduce((sum, l) => sum + l.length + 1, 0);
  return { start: offset(first), end: offset(last), rows };
}
