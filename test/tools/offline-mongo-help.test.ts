import { execFile } from "node:child_process";
import { join } from "node:path";

const ROOT = join(__dirname, "..", "..");

describe("npm run offline-mongo -- --help", () => {
  it.each(["--help", "-h"])(
    "answers %s with the usage on stdout and status 0, starting no server",
    async (flag) => {
      const answer = await new Promise<{ status: number | null; stdout: string }>((resolve) =>
        execFile("npm", ["run", "--silent", "offline-mongo", "--", flag], { cwd: ROOT }, (error, stdout) =>
          resolve({ status: error ? (typeof error.code === "number" ? error.code : null) : 0, stdout }),
        ),
      );
      expect(answer).toEqual({ status: 0, stdout: expect.stringMatching(/^usage: npm run offline-mongo -- \[--port 27017\]/) });
      expect(answer.stdout).not.toContain("listening");
    },
    60_000,
  );
});
