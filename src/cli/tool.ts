import { parseArgs, type ParseArgsConfig } from "node:util";
import { ConfigError, readConfig, type Config } from "../config";
import { connectToDatabase, type DatabaseConnection } from "../db/connection";
import { ensureSalesIndexes } from "../sales/indexes";
import { InvalidInputError } from "../sales/errors";

/** Where a command writes: the console when run, a buffer in tests. */
export interface ToolOutput {
  out(line: string): void;
  err(line: string): void;
}

export const consoleOutput: ToolOutput = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
};

const ENGLISH_PLURALS = new Intl.PluralRules("en");

/** "1 violation", "2 violations": a count and its noun, in the number English gives it. */
export function counted(count: number, noun: string): string {
  return `${count} ${ENGLISH_PLURALS.select(count) === "one" ? noun : `${noun}s`}`;
}

/** The command was called wrongly (flag, value or environment): exit status 2 and the usage. */
export class UsageError extends Error {
  override readonly name = "UsageError";
}

/** The command ran but could not do its job for a reason it explains: exit status 1. */
export class ToolFailure extends Error {
  override readonly name = "ToolFailure";
}

/**
 * The command's own output already says what is wrong (reconcile's summary line, its JSON): exit status 1 and
 * nothing on stderr, so that a person reads the outcome once, in one wording.
 */
export class ReportedFailure extends Error {
  override readonly name = "ReportedFailure";
}

export interface ToolDefinition {
  /** What `--help` and usage errors print. */
  usage: string;
  run(args: string[], env: NodeJS.ProcessEnv, output: ToolOutput): Promise<void>;
}

/** Runs a command and turns its failures into an exit status, every one with a message naming the cause and the fix. */
export async function runTool(tool: ToolDefinition, args: string[], env: NodeJS.ProcessEnv, output: ToolOutput): Promise<number> {
  if (args.includes("--help") || args.includes("-h")) {
    output.out(tool.usage);
    return 0;
  }
  try {
    await tool.run(args, env, output);
    return 0;
  } catch (error) {
    if (error instanceof UsageError || error instanceof InvalidInputError) {
      output.err(`${error.message}\n\n${tool.usage}`);
      return 2;
    }
    if (error instanceof ReportedFailure) return 1;
    output.err(error instanceof Error ? error.message : String(error));
    return 1;
  }
}

/** Entry point for `tsx src/cli/<tool>.ts`: sets the exit status once the command is done. */
export function runToolAsMain(tool: ToolDefinition): void {
  void runTool(tool, process.argv.slice(2), process.env, consoleOutput).then((status) => {
    process.exitCode = status;
  });
}

/**
 * `npm run report --top 3` hands the command only "3": npm takes a flag before `--` for its own configuration.
 * An argument that is not a flag is always that mistake here, since no command takes one.
 */
const NPM_KEPT_THE_FLAG =
  "npm keeps the flags written before `--` for itself: put `--` before the command's flags, e.g. `npm run report -- --top 3`.";

/**
 * node:util's parseArgs, with its errors (unknown flag, missing value) turned into usage errors. A negative number
 * after a flag is that flag's value (node calls it ambiguous, as it could be a flag), so that the flag's own check
 * names what is wrong with it.
 */
export function parseFlags<Options extends NonNullable<ParseArgsConfig["options"]>>(args: string[], options: Options) {
  try {
    return parseArgs({ args: withNegativeValues(args, options), options, strict: true, allowPositionals: false }).values;
  } catch (error) {
    const { code, message } = error as { code?: string; message: string };
    throw new UsageError(code === "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL" ? `${message} ${NPM_KEPT_THE_FLAG}` : message);
  }
}

/** `--books -5` as `--books=-5`, for a flag that takes a value. */
function withNegativeValues(args: readonly string[], options: NonNullable<ParseArgsConfig["options"]>): string[] {
  const joined: string[] = [];
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index]!;
    const next = args[index + 1];
    if (arg.startsWith("--") && options[arg.slice(2)]?.type === "string" && next !== undefined && /^-\d/.test(next)) {
      joined.push(`${arg}=${next}`);
      index += 1;
    } else joined.push(arg);
  }
  return joined;
}

/** A flag holding a whole number, or `fallback` when it is absent. */
export function wholeNumberFlag(value: string | undefined, flag: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value))) {
    throw new UsageError(`--${flag} must be a whole number, got "${value}".`);
  }
  return Number(value);
}

/**
 * Reads the configuration and connects to the database MONGODB_URI names, creating the indexes unless
 * told not to. Tools never start a throwaway database: data written there would vanish when they exit.
 */
export async function withDatabase<T>(
  env: NodeJS.ProcessEnv,
  command: string,
  work: (connection: DatabaseConnection, config: Config) => Promise<T>,
  { withIndexes = true }: { withIndexes?: boolean } = {},
): Promise<T> {
  const config = readToolConfig(env);
  if (!config.mongodbUri) {
    throw new UsageError(
      `MONGODB_URI is not set: ${command} works on an existing MongoDB. Set it, e.g. MONGODB_URI=mongodb://localhost:27017 ${command}; ` +
        'for the throwaway database of a running `npm start`, use the URI its log prints after "ready at"',
    );
  }
  const connection = await connectToDatabase(
    config.mongodbUri,
    config.mongodbDb,
    {},
    withIndexes ? { ensureIndexes: ensureSalesIndexes } : {},
  );
  try {
    return await work(connection, config);
  } finally {
    await connection.close();
  }
}

/** readConfig for a command: a bad environment is a usage error (exit 2), like a bad flag. */
export function readToolConfig(env: NodeJS.ProcessEnv): Config {
  try {
    return readConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) throw new UsageError(error.message);
    throw error;
  }
}
