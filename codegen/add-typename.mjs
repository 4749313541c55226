// The client preset's own transform, by a path codegen.yml can name: Apollo Client's cache adds __typename to every
// selection it sends, so the trusted documents must hold it too, or the answers to them would lack what the cache needs.
import { addTypenameSelectionDocumentTransform } from "@graphql-codegen/client-preset";

export const { transform } = addTypenameSelectionDocumentTransform;
