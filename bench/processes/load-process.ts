import autocannon from "autocannon";

/**
 * autocannon in a process of its own: POSTs one body to one URL and prints autocannon's result as
 * JSON. Arguments: url, body, connections, seconds, and an Authorization header (empty: none).
 */
async function main(): Promise<void> {
  const [url, body, connections, seconds, authorization] = process.argv.slice(2);
  if (!url || !body || !connections || !seconds) throw new Error("usage: load-process URL BODY CONNECTIONS SECONDS [AUTHORIZATION]");
  const result = await autocannon({
    url,
    method: "POST",
    headers: { "content-type": "application/json", ...(authorization ? { authorization } : {}) },
    body,
    connections: Number(connections),
    duration: Number(seconds),
  });
  process.stdout.write(JSON.stringify(result));
}

void main().catch((error: unknown) => {
  process.stderr.write(`load-process: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
