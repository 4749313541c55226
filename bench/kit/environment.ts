import os from "node:os";
import type { Db } from "mongodb";
import type { OutlierSettings } from "../../src/config";
import type { SelectedDatabase } from "../../src/db/select-database";

export interface Environment {
  backend: SelectedDatabase["kind"];
  backendDescription: string;
  backendVersion: string;
  node: string;
  cpu: string;
  cores: number;
  memoryGiB: number;
  platform: string;
  settings: OutlierSettings;
}

export async function describeEnvironment(database: SelectedDatabase, db: Db, settings: OutlierSettings): Promise<Environment> {
  const buildInfo = await db.admin().command({ buildInfo: 1 });
  const cpus = os.cpus();
  return {
    backend: database.kind,
    backendDescription: database.description,
    backendVersion: String(buildInfo.version),
    node: process.version,
    cpu: cpus[0]?.model.trim() ?? "unknown",
    cores: cpus.length,
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    platform: `${os.type()} ${os.release()} ${os.arch()}`,
    settings,
  };
}
