import { settleInFlight } from "./in-flight";

// Registered before any test file's hooks, so it runs before their top-level afterEach (which may close the database).
afterEach(settleInFlight);
