import { supportedNodeRange, unsupportedNodeWarning } from "../../src/cli/node-version";

describe("npm start's check of the Node version", () => {
  const range = supportedNodeRange();

  it("reads the supported versions from package.json's engines", () => {
    expect(range).toBe("^22.15.0 || >=24.0.0");
  });

  it.each(["22.15.0", "22.23.3", "24.0.0", "25.1.0"])("says nothing on Node %s", (version) => {
    expect(unsupportedNodeWarning(version, range)).toBeUndefined();
  });

  it.each(["20.19.0", "22.14.0", "23.11.0"])("tells the operator of Node %s it is not supported, and what to do", (version) => {
    expect(unsupportedNodeWarning(version, range)).toBe(
      `Node ${version} is not supported by this release (package.json engines: ^22.15.0 || >=24.0.0). ` +
        "Install Node 24 (docs/operations/node-versions.md shows how) and run npm ci again.",
    );
  });
});
