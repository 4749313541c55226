import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { GraphQLError } from "graphql";
import { statusOf } from "../error-codes";
import type { Principal } from "./principal";

/**
 * The operations a token marked `"trustedDocuments": true` may run, by hash: a persisted documents manifest as
 * graphql-codegen's client preset writes it (`persistedDocuments`), `{"sha256:<hex>": "<document>"}`.
 */
export type TrustedDocuments = ReadonlyMap<string, string>;

const HASH_KEY = /^sha256:([0-9a-f]{64})$/;

/** Reads a manifest; throws an Error naming the first problem and what to do. */
export function readTrustedDocuments(path: string): TrustedDocuments {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new Error(
      `cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); run "npm run codegen" to write it`,
      {
        cause: error,
      },
    );
  }
  return parseTrustedDocuments(text, path);
}

function parseTrustedDocuments(text: string, path: string): TrustedDocuments {
  let manifest: unknown;
  try {
    manifest = JSON.parse(text);
  } catch {
    throw new Error(`${path} is not JSON; expected graphql-codegen's persisted documents manifest, {"sha256:<hex>": "<document>"}`);
  }
  if (typeof manifest !== "object" || manifest === null || Array.isArray(manifest))
    throw new Error(`${path} must be an object {"sha256:<hex>": "<document>"}, as graphql-codegen's persistedDocuments writes it`);
  const documents = new Map<string, string>();
  for (const [key, document] of Object.entries(manifest)) {
    const hash = HASH_KEY.exec(key)?.[1];
    if (hash === undefined || typeof document !== "string")
      throw new Error(
        `${path}: the entry "${key.slice(0, 80)}" is not "sha256:<64 hex digits>": "<document>"; generate the manifest with hashAlgorithm sha256`,
      );
    // A hash that is not its document's would let the manifest say one thing and run another.
    if (createHash("sha256").update(document).digest("hex") !== hash)
      throw new Error(`${path}: the entry "${key}" is not the SHA-256 of its document; regenerate the manifest with "npm run codegen"`);
    documents.set(hash, document);
  }
  return documents;
}

/** The hash a request names its operation by: Apollo's persisted query extension, as Apollo Client's PersistedQueryLink sends it. */
function requestedHash(extensions: Record<string, unknown> | undefined): string | undefined {
  const persistedQuery = extensions?.persistedQuery as { sha256Hash?: unknown } | undefined;
  const hash = persistedQuery?.sha256Hash;
  return typeof hash === "string" ? hash.replace(/^sha256:/, "") : undefined;
}

/**
 * For a token held to trusted documents, the manifest's document a request names by hash, or the refusal
 * (DOCUMENT_NOT_TRUSTED) when it sent a document of its own (`sentDocument`), a hash the manifest lacks, or
 * neither; undefined for every other caller, who sends what it likes. HTTP and WebSocket alike.
 */
export function trustedDocumentOf(
  principal: Principal,
  documents: TrustedDocuments | undefined,
  sentDocument: boolean,
  extensions: Record<string, unknown> | null | undefined,
): { document: string } | { refusal: GraphQLError } | undefined {
  if (principal.kind !== "token" || !principal.trustedDocumentsOnly) return undefined;
  const hash = requestedHash(extensions ?? undefined);
  const document = hash === undefined ? undefined : documents?.get(hash);
  const refused = sentDocument ? "sent a document" : document === undefined ? unknownHash(hash) : undefined;
  if (refused === undefined) return { document: document! };
  return {
    refusal: new GraphQLError(
      `The token "${principal.name}" may run only its trusted documents, named by hash (extensions.persistedQuery.sha256Hash), and this request ${refused}`,
      { extensions: { code: "DOCUMENT_NOT_TRUSTED", http: { status: statusOf("DOCUMENT_NOT_TRUSTED") } } },
    ),
  };
}

function unknownHash(hash: string | undefined): string {
  return hash === undefined
    ? "sent no hash"
    : `named the hash ${hash.slice(0, 64)}, which is not one of them: regenerate the client's manifest (npm run codegen) and give the API the new one (TRUSTED_DOCUMENTS)`;
}
