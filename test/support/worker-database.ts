/**
 * Before each integration test file: the database process of this file's jest worker (global-setup.ts starts one per
 * worker), as the TEST_MONGODB_URI and TEST_REPLICA_SET_URI every test and helper reads. JEST_WORKER_ID is 1 in band.
 */
const worker = process.env.JEST_WORKER_ID ?? "1";
const uri = process.env[`TEST_MONGODB_URI_${worker}`];
const replicaSetUri = process.env[`TEST_REPLICA_SET_URI_${worker}`];
if (!uri || !replicaSetUri)
  throw new Error(
    `No database for jest worker ${worker}: global-setup.ts starts one per worker (maxWorkers); run through the root's jest.`,
  );
process.env.TEST_MONGODB_URI = uri;
process.env.TEST_REPLICA_SET_URI = replicaSetUri;
