import { ObjectId } from "mongodb";
import type { BookId } from "./documents";
import { InvalidInputError } from "./errors";

export const MAX_ID_LENGTH = 128;

const CANONICAL_INTEGER = /^(0|-?[1-9]\d{0,15})$/;
const OBJECT_ID_HEX = /^[0-9a-f]{24}$/;

/**
 * Maps a GraphQL ID to the stored `_id`: canonical decimal integers become numbers and
 * 24 lowercase hex digits an ObjectId; any other string stays a string. The mapping is
 * one-to-one with `formatBookId`, so every id the API writes reads back unchanged.
 */
export function parseBookId(id: string, argument = "id"): BookId {
  checkIdLength(id, argument);
  if (CANONICAL_INTEGER.test(id) && Number.isSafeInteger(Number(id))) return Number(id);
  if (OBJECT_ID_HEX.test(id)) return new ObjectId(id);
  return id;
}

export function formatBookId(id: BookId): string {
  return typeof id === "object" ? id.toHexString() : String(id);
}

/** A map key for a book id that keeps the integer 1 and the string "1" apart, as the database does. */
export function bookIdKey(id: BookId): string {
  return typeof id === "object" ? `oid:${id.toHexString()}` : `${typeof id}:${id}`;
}

/** Customer ids are stored as given: only their length is checked. */
export function parseCustomerId(id: string, argument = "customerId"): string {
  checkIdLength(id, argument);
  return id;
}

/** Purchase ids (clients' order line ids) are stored as given, like customer ids. */
export function parsePurchaseId(id: string, argument = "purchaseId"): string {
  checkIdLength(id, argument);
  return id;
}

export function isAcceptableIdLength(id: string): boolean {
  return id.length > 0 && id.length <= MAX_ID_LENGTH;
}

function checkIdLength(id: string, argument: string): void {
  // The types say string; a router's `_entities` representations (`_Any`) are the one path that could say otherwise.
  if (typeof id !== "string" || !isAcceptableIdLength(id)) {
    throw new InvalidInputError(`${argument} must be 1 to ${MAX_ID_LENGTH} characters long.`, argument);
  }
}
