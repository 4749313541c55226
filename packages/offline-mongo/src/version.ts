/** The version buildInfo reports: the mongod release whose behaviour this server imitates, marked offline. */
export const OFFLINE_SERVER_VERSION = "7.0.0-offline";
export const VERSION_ARRAY = [7, 0, 0, 0] as const;
