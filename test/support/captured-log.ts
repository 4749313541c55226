import { Writable } from "node:stream";
import pino, { type Logger } from "pino";
import type { RunningServer } from "../../src/graphql/transport/server";
import { openTestDatabase, type TestDatabase } from "./database";
import { customers, seedBook } from "./factories";
import { startTestHttpServer } from "./http";

/** pino's level number for `error`: a line at or above it is the server blaming itself. */
export const ERROR_LEVEL = 50;

export interface LogLine {
  level: number;
  msg: string;
}

export interface CapturedLog {
  /** A logger at `info` whose lines land in `lines`, for a server under test. */
  logger: Logger;
  /** Every line since the last `clear`. */
  lines(): LogLine[];
  /** The lines at error level or above since the last `clear`. */
  errors(): LogLine[];
  clear(): void;
}

/** The server's log as a test reads it: parsed lines, kept in memory. */
export function captureLog(): CapturedLog {
  let lines: LogLine[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as LogLine);
      done();
    },
  });
  return {
    logger: pino({ level: "info" }, sink),
    lines: () => lines,
    errors: () => lines.filter((line) => line.level >= ERROR_LEVEL),
    clear: () => void (lines = []),
  };
}

export interface LoggedServer {
  database: TestDatabase;
  server: RunningServer;
  log: CapturedLog;
}

/**
 * For a test file of requests the server must take calmly: a database of its own holding book "1" with 3
 * buyers, and the API serving it over HTTP with its log captured; opened before the file's tests, closed
 * after them. The fields are filled in when the file's tests start.
 */
export function serveOneBookLogged(): LoggedServer {
  const served = { log: captureLog() } as LoggedServer;
  beforeAll(async () => {
    served.database = await openTestDatabase();
    served.server = await startTestHttpServer(served.database.db, { logger: served.log.logger });
    await seedBook(served.database.db, "1", customers(3));
  });
  afterAll(async () => {
    await served.server.stop();
    await served.database.close();
  });
  return served;
}
