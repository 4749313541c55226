import type { RunningServer } from "../../src/graphql/transport/server";

/** One scrape of a server's /metrics: its text, and the value of one sample, e.g. `sample("x_total", 'storage="EMBEDDED"')` (undefined when absent). */
export interface Scrape {
  text: string;
  contentType: string | null;
  sample(name: string, labels?: string): number | undefined;
}

export async function scrapeMetrics(server: Pick<RunningServer, "url">): Promise<Scrape> {
  const response = await fetch(server.url.replace(/\/graphql$/, "/metrics"));
  const text = await response.text();
  const sample = (name: string, labels = ""): number | undefined => {
    const line = text.split("\n").find((candidate) => candidate.startsWith(labels ? `${name}{${labels}} ` : `${name} `));
    return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(" ") + 1));
  };
  return { text, contentType: response.headers.get("content-type"), sample };
}
