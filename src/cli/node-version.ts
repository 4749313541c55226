import { readFileSync } from "node:fs";
import { join } from "node:path";
import { satisfies } from "semver";

/** The Node versions package.json's `engines` names: the one place they are written. */
export function supportedNodeRange(): string {
  const manifest = JSON.parse(readFileSync(join(__dirname, "..", "..", "package.json"), "utf8")) as { engines: { node: string } };
  return manifest.engines.node;
}

/**
 * What to tell the operator of a Node outside `range`, or undefined on a supported one. Said once at start-up, not
 * refused: an unsupported Node may still run the API today, though CI no longer checks it there, and it
 * gets no fixes from this project and, past its end of life, none from Node.
 */
export function unsupportedNodeWarning(version: string, range: string): string | undefined {
  if (satisfies(version, range)) return undefined;
  return (
    `Node ${version} is not supported by this release (package.json engines: ${range}). ` +
    "Install Node 24 (docs/operations/node-versions.md shows how) and run npm ci again."
  );
}
