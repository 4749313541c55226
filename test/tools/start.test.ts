import { execFile } from "node:child_process";
import { once } from "node:events";
import { createServer } from "node:net";
import { join } from "node:path";

const ROOT = join(__dirname, "..", "..");

/** `npm start` as a developer runs it: no MONGODB_URI, so it would start a throwaway database and load the demo data. */
function npmStart(env: Record<string, string>): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const { MONGODB_URI: _none, ...inherited } = process.env;
  return new Promise((resolve) => {
    execFile(
      join(ROOT, "node_modules", ".bin", "tsx"),
      [join(ROOT, "src", "cli", "start.ts")],
      { env: { ...inherited, ...env }, cwd: ROOT },
      (error, stdout, stderr) => resolve({ status: error ? (typeof error.code === "number" ? error.code : null) : 0, stdout, stderr }),
    );
  });
}

describe("npm start", () => {
  it("says its port is taken before it starts a database or loads any demo data", async () => {
    const holder = createServer().listen(0, "127.0.0.1");
    await once(holder, "listening");
    const { port } = holder.address() as { port: number };
    try {
      const started = await npmStart({ PORT: String(port), HOST: "127.0.0.1", LOG_LEVEL: "info", NODE_ENV: "development" });
      expect(started.status).toBe(1);
      expect(started.stderr).toContain(`Port ${port} is already in use`);
      expect(started.stderr).toContain("set PORT to a free port");
      expect(started.stdout).not.toMatch(/Database:|Loading demo data/);
    } finally {
      holder.close();
    }
  });
});
