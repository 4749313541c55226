import { performance } from "node:perf_hooks";
import {
  ATTACKERS_PER_KIND,
  attackerAddress,
  attacks,
  crowdAddress,
  MEANT_CODES,
  sendUntil,
  victim,
  VICTIM,
  type AttackKind,
  type VictimCatalog,
} from "../../test/support/victim-attacks";

/**
 * One side of issue 35's victim benchmark in a process of its own, as a user's victim and its attackers are other
 * machines: so that the victim's latency is the API's, not time its client waited behind the attackers' client code
 * (sending, parsing answers) on one event loop. Arguments: url, then `victim`, `crowd` (as many clients as there are
 * attackers, each sending the victim's query back to back) or an attack kind (its four attackers). The victim sends
 * from 127.0.0.1, every other client from an address of its own (127.0.0.2 and on), as real clients are other machines.
 *
 * Prints `ready`, then answers each IPC message (`VictimOrder`: how long to send, and for an attack its catalog and
 * bearer) with what it measured once the time is up: the victim's latencies and failures, or every client's answers.
 */

export type VictimRole = "victim" | "crowd" | AttackKind;

export interface VictimOrder {
  durationMs: number;
  catalog?: VictimCatalog;
  authorization?: string;
}

async function perform(url: string, role: VictimRole, { durationMs, catalog, authorization }: VictimOrder): Promise<unknown> {
  const until = performance.now() + durationMs;
  if (role === "victim") return victim(url, until);
  const crowd = Object.keys(MEANT_CODES).length * ATTACKERS_PER_KIND;
  if (role === "crowd") {
    return Promise.all(
      Array.from({ length: crowd }, (_, index) => sendUntil(url, VICTIM, until, { label: "crowd", from: crowdAddress(index) })),
    );
  }
  if (!catalog || !authorization) throw new Error(`the ${role} attackers need the catalog and the reader's bearer`);
  const attack = attacks(catalog)[role];
  return Promise.all(
    Array.from({ length: ATTACKERS_PER_KIND }, (_, index) =>
      sendUntil(url, attack.body, until, {
        label: `attack-${role}`,
        from: attackerAddress(role, index),
        ...(attack.reader && { authorization }),
      }),
    ),
  );
}

function main(): void {
  const [url, role] = process.argv.slice(2) as [string | undefined, VictimRole | undefined];
  if (!url || !role || !process.send) throw new Error("usage (with an IPC channel): victim-process URL victim|crowd|<attack kind>");
  process.on("message", (message: string) => {
    perform(url, role, JSON.parse(message) as VictimOrder).then(
      (measured) => process.send!(measured),
      (error: unknown) => {
        process.stderr.write(`victim-process ${role}: ${error instanceof Error ? error.message : String(error)}\n`);
        process.exit(1);
      },
    );
  });
  // Disconnected (the bench stopped it or exited): nothing more to do.
  process.on("disconnect", () => process.exit(0));
  process.stdout.write("ready\n");
}

main();
