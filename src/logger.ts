import pino, { type Logger } from "pino";

/** JSON lines for machines in production; readable lines for people at a terminal otherwise. */
export function createLogger(nodeEnv: string): Logger {
  const readable = nodeEnv !== "production" && process.stdout.isTTY;
  return pino({
    level: process.env.LOG_LEVEL ?? (nodeEnv === "test" ? "silent" : "info"),
    ...(readable ? { transport: { target: "pino-pretty", options: { translateTime: "HH:MM:ss", ignore: "pid,hostname" } } } : {}),
  });
}

export type { Logger };
