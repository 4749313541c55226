import type { Document } from "bson";
import { ErrorCode, MongoCommandError } from "../errors";
import { isDocument } from "../values/values";
import { sessionKey } from "./transactions";

/** The sessions a `killSessions` names (their keys), or all of them for `killAllSessions`. */
export type KilledSessions = ReadonlySet<string> | "all";

/**
 * What a successful `killSessions` or `killAllSessions` kills, or undefined for any other command. Without
 * authentication every session is the one user's, so `killAllSessions` with any user list kills them all.
 */
export function sessionsKilledBy(name: string, body: Document): KilledSessions | undefined {
  if (name === "killAllSessions") return "all";
  if (name !== "killSessions") return undefined;
  const listed: unknown = body["killSessions"];
  const keys = (Array.isArray(listed) ? listed : []).map((lsid: unknown) => sessionKey(isDocument(lsid) ? lsid["id"] : undefined));
  return new Set(keys.filter((key): key is string => key !== undefined));
}

/** The key of the session a command runs in (its `lsid`), if it names one. */
export function sessionOf(body: Document): string | undefined {
  const lsid: unknown = body["lsid"];
  return sessionKey(isDocument(lsid) ? lsid["id"] : undefined);
}

export function isKilled(killed: KilledSessions, session: string | undefined): boolean {
  if (session === undefined) return false;
  return killed === "all" || killed.has(session);
}

/** What mongod answers an operation `killSessions` interrupts (`killSessionsLocalKillOps`, as `killOp` does). */
export function interrupted(): MongoCommandError {
  return new MongoCommandError(ErrorCode.Interrupted, "operation was interrupted");
}
