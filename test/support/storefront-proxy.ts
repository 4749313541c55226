import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { freePort } from "./http";

const ROOT = join(__dirname, "..", "..");
/** The web storefront example, whose dev server proxies /graphql to the API with the storefront's token. */
export const WEB_STOREFRONT = join(ROOT, "examples", "web-storefront");
/** Its persisted documents, the only operations its token may run. */
export const WEB_STOREFRONT_MANIFEST = join(WEB_STOREFRONT, "src", "__generated__", "persisted-documents.json");

export interface StorefrontProxy {
  /** The proxy's /graphql. */
  url: string;
  child: ChildProcess;
  /** SIGTERM, and resolves once vite has exited. */
  stop(): Promise<void>;
}

/** `npm run example:web`'s dev server and its proxy, pointed at the test's API with the storefront's token; resolves once it serves the page. */
export async function startStorefrontProxy(apiUrl: string, token: string): Promise<StorefrontProxy> {
  const port = await freePort();
  const vite = join(ROOT, "node_modules", "vite", "bin", "vite.js");
  const child = spawn(process.execPath, [vite, WEB_STOREFRONT, "--port", String(port), "--strictPort"], {
    cwd: ROOT,
    env: { ...process.env, API_URL: apiUrl, STOREFRONT_TOKEN: token },
    stdio: "ignore",
  });
  const stop = async () => {
    child.kill("SIGTERM");
    await once(child, "exit");
  };
  for (;;) {
    if (child.exitCode !== null) throw new Error(`vite exited with ${child.exitCode} before it served the page`);
    const answered = await fetch(`http://localhost:${port}/`).then(
      (response) => response.ok,
      () => false,
    );
    if (answered) return { url: `http://localhost:${port}/graphql`, child, stop };
    await sleep(200);
  }
}
