/**
 * The only module that reads the environment: in Node (and Deno and Bun, which provide `process`),
 * `SVC_ENDPOINT` and `SVC_API_KEY` are the defaults of `baseUrl` and `apiKey`. In a browser there is
 * no environment and nothing is read. No Node built-in is imported.
 */

/** The defaults the environment provides. */
export interface EnvironmentDefaults {
  baseUrl: string | undefined;
  apiKey: string | undefined;
}

/** Reads `SVC_ENDPOINT` and `SVC_API_KEY` where a `process.env` exists. */
export function readEnvironment(): EnvironmentDefaults {
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env;
  const value = (name: string) => {
    const raw = env?.[name]?.trim();
    return raw === undefined || raw === '' ? undefined : raw;
  };
  return { baseUrl: value('SVC_ENDPOINT'), apiKey: value('SVC_API_KEY') };
}
