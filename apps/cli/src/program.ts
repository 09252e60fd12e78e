import { Command, CommanderError } from 'commander';
import { CommandGroup, CommandSpec, EXIT, Options } from './context/command-spec';

const NAME = 'npm run cli --';

/** The command's name as the operator types it (`keys set-cap`, `migrate`). */
function fullName(group: CommandGroup, name: string): string {
  return name ? `${group.name} ${name}` : group.name;
}

function commandLines(name: string, spec: CommandSpec): string[] {
  const lines = [`  ${name.padEnd(16)} ${spec.summary}`];
  for (const [option, o] of Object.entries(spec.options)) {
    lines.push(`      --${option.padEnd(12)} ${o.description}${o.required ? ' (required)' : ''}`);
  }
  return lines;
}

/** The whole help: every command with its options (what `--help` prints), then the rules every command follows. */
export function usage(groups: readonly CommandGroup[]): string {
  const lines = [`Usage: ${NAME} <command> [--option value ...] [--json]`, '', 'Commands:'];
  for (const group of groups) for (const [name, spec] of Object.entries(group.commands)) lines.push(...commandLines(fullName(group, name), spec));
  lines.push(
    '',
    'Options for every command: --json (machine-readable output on stdout), --help (that command only).',
    'Exit codes: 0 done, 1 refused (the message says why), 2 usage error, 3 failed (e.g. database unreachable).',
    'Database: DATABASE_URL when set; otherwise the standalone data folder (DATA_DIR, default .data), which only',
    'accounts create, migrate, models add and models sync create when it does not exist yet.',
    'NATS: with DATABASE_URL and NATS_URL (and NATS_SUBJECT_PREFIX as the services have it), key and plan changes',
    'reach the running gateways at once; otherwise they see them within seconds (their caches).',
  );
  return lines.join('\n') + '\n';
}

/** The command's options by their long names, from commander's parse (global --json included). */
function optionsOf(command: Command): Options {
  const options: Options = {};
  for (const option of command.options) {
    if (option.long) options[option.long.slice(2)] = command.getOptionValue(option.attributeName()) as string | boolean | undefined;
  }
  if (command.optsWithGlobals().json === true) options.json = true;
  return options;
}

/** Declares one command's options on commander: values as `<value>`, flags bare; required ones say so in their help. */
function declare(command: Command, spec: CommandSpec): Command {
  command.description(spec.summary);
  for (const [name, option] of Object.entries(spec.options)) {
    command.option(option.flag ? `--${name}` : `--${name} <value>`, option.description + (option.required ? ' (required)' : ''));
  }
  return command.option('--json', 'machine-readable output on stdout');
}

/**
 * The operator CLI's parser (commander): a command per group and subcommand, typo suggestions for
 * commands and options ("Did you mean ...?"), `--help` for the whole CLI or one command. A usage
 * error exits 2; a parsed command runs through `run`, whose exit code it returns.
 */
export async function parseAndRun(argv: string[], groups: readonly CommandGroup[], run: (spec: CommandSpec, options: Options) => Promise<number>): Promise<number> {
  let exitCode: number = EXIT.ok;
  const program = new Command(NAME)
    .usage('<command> [--option value ...] [--json]')
    .option('--json', 'machine-readable output on stdout')
    .exitOverride()
    .showSuggestionAfterError(true)
    .showHelpAfterError(`(${NAME} --help lists every command; ${NAME} <command> --help shows one)`)
    .configureOutput({ writeOut: (text) => process.stdout.write(text), writeErr: (text) => process.stderr.write(text) });

  const action = (spec: CommandSpec) => async (_: unknown, command: Command) => {
    const options = optionsOf(command);
    const missing = Object.entries(spec.options).find(([name, o]) => o.required && typeof options[name] !== 'string');
    if (missing) {
      process.stderr.write(`Missing --${missing[0]}.\n\n${command.helpInformation()}`);
      exitCode = EXIT.usage;
      return;
    }
    exitCode = await run(spec, options);
  };
  for (const group of groups) {
    const leaf = group.commands[''];
    if (leaf) {
      declare(program.command(group.name), leaf).action(action(leaf));
      continue;
    }
    const parent = program.command(group.name).description(group.summary);
    for (const [name, spec] of Object.entries(group.commands)) declare(parent.command(name), spec).action(action(spec));
  }
  // Set after the commands are made, so that they keep commander's own help of one command.
  program.configureHelp({ formatHelp: () => usage(groups) });

  try {
    await program.parseAsync(argv, { from: 'user' });
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    throw error;
  }
}

