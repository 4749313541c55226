import { BSON, type Document } from "bson";

export const OP_REPLY = 1;
export const OP_QUERY = 2004;
export const OP_MSG = 2013;

const HEADER_SIZE = 16;
const CHECKSUM_PRESENT = 1 << 0;
const MORE_TO_COME = 1 << 1;
/** OP_MSG flag bits a client may set that this server understands; any other required bit is an error. */
const KNOWN_MSG_FLAGS = CHECKSUM_PRESENT | MORE_TO_COME | (1 << 16);
/** mongod accepts at most two kind-1 sections per message (TooManyDocumentSequences). */
const MAX_DOCUMENT_SEQUENCES = 2;

/**
 * Keeps int32, int64 and double apart (Int32/Double/Long wrappers) and regex flags intact,
 * so that stored documents round-trip with exactly the types the client sent.
 */
export const DESERIALIZE_OPTIONS = { promoteValues: false, bsonRegExp: true } as const;

export interface MessageHeader {
  readonly messageLength: number;
  readonly requestId: number;
  readonly responseTo: number;
  readonly opCode: number;
}

export type Request =
  | { readonly kind: "query"; readonly header: MessageHeader; readonly collection: string; readonly query: Document }
  | { readonly kind: "msg"; readonly header: MessageHeader; readonly moreToCome: boolean; readonly body: Document };

export class WireProtocolError extends Error {}

/**
 * Cuts a connection's byte stream into whole messages. Chunks are kept as they arrive and joined
 * once per message, when it is complete, so that a large message costs one copy however many
 * chunks it comes in. A declared length outside 16 bytes to `maxMessageSize` is refused as mongod
 * refuses it ("recv(): message msgLen ... is invalid"), before anything of it is buffered.
 */
export class MessageFrames {
  private chunks: Buffer[] = [];
  private buffered = 0;

  constructor(private readonly maxMessageSize: number) {}

  /** Adds `chunk` and returns every message it completes; throws a WireProtocolError on an invalid length. */
  push(chunk: Buffer): Buffer[] {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    const messages: Buffer[] = [];
    for (let length = this.declaredLength(); length !== undefined && this.buffered >= length; length = this.declaredLength()) {
      const pending = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.buffered);
      messages.push(pending.subarray(0, length));
      const rest = pending.subarray(length);
      this.chunks = rest.length === 0 ? [] : [rest];
      this.buffered = rest.length;
    }
    return messages;
  }

  /** The length the next message declares, once its first 4 bytes are here. */
  private declaredLength(): number | undefined {
    if (this.buffered < 4) return undefined;
    // The length field itself may straddle chunks: join them, which happens at most once per message.
    if (this.chunks[0]!.length < 4) this.chunks = [Buffer.concat(this.chunks, this.buffered)];
    const length = this.chunks[0]!.readInt32LE(0);
    if (length < HEADER_SIZE || length > this.maxMessageSize) {
      throw new WireProtocolError(`recv(): message msgLen ${length} is invalid. Min ${HEADER_SIZE} Max: ${this.maxMessageSize}`);
    }
    return length;
  }
}

export function readHeader(buffer: Buffer): MessageHeader {
  return {
    messageLength: buffer.readInt32LE(0),
    requestId: buffer.readInt32LE(4),
    responseTo: buffer.readInt32LE(8),
    opCode: buffer.readInt32LE(12),
  };
}

function readCString(buffer: Buffer, offset: number): { value: string; next: number } {
  const end = buffer.indexOf(0, offset);
  if (end < 0) throw new WireProtocolError("unterminated cstring in message");
  return { value: buffer.toString("utf8", offset, end), next: end + 1 };
}

/** Reads the BSON document at `offset`, which must end by `end` (the end of its section, or of the message). */
function readDocument(buffer: Buffer, offset: number, end = buffer.length): { doc: Document; next: number } {
  const size = readSize(buffer, offset, end);
  if (size < 5 || offset + size > end) throw new WireProtocolError("BSON document overruns its section");
  return { doc: BSON.deserialize(buffer.subarray(offset, offset + size), DESERIALIZE_OPTIONS), next: offset + size };
}

function readSize(buffer: Buffer, offset: number, end: number): number {
  if (offset + 4 > end) throw new WireProtocolError("message ends inside a size field");
  return buffer.readInt32LE(offset);
}

/** Decodes one complete message (header included). */
export function decodeRequest(message: Buffer): Request {
  const header = readHeader(message);
  if (header.opCode === OP_QUERY) return decodeQuery(message, header);
  if (header.opCode === OP_MSG) return decodeMsg(message, header);
  throw new WireProtocolError(`offline server: opcode ${header.opCode} is not supported (only OP_QUERY handshake and OP_MSG)`);
}

function decodeQuery(message: Buffer, header: MessageHeader): Request {
  // flags(4) fullCollectionName numberToSkip(4) numberToReturn(4) query [returnFieldsSelector]
  const name = readCString(message, HEADER_SIZE + 4);
  const { doc } = readDocument(message, name.next + 8);
  return { kind: "query", header, collection: name.value, query: doc };
}

function decodeMsg(message: Buffer, header: MessageHeader): Request {
  const flags = message.readUInt32LE(HEADER_SIZE);
  // Bits 0-15 are "required": a receiver must reject any it does not know.
  if ((flags & 0xffff & ~KNOWN_MSG_FLAGS) !== 0) throw new WireProtocolError(`unknown required OP_MSG flag bits ${flags}`);
  const end = flags & CHECKSUM_PRESENT ? message.length - 4 : message.length;
  let offset = HEADER_SIZE + 4;
  let body: Document | undefined;
  const sequences: Array<[string, Document[]]> = [];
  while (offset < end) {
    const kind = message.readUInt8(offset);
    offset += 1;
    if (kind === 0) {
      if (body !== undefined) throw new WireProtocolError("Multiple body sections in message");
      const read = readDocument(message, offset, end);
      body = read.doc;
      offset = read.next;
    } else if (kind === 1) {
      if (sequences.length === MAX_DOCUMENT_SEQUENCES) throw new WireProtocolError("Too many document sequences in OP_MSG");
      const sequence = readDocumentSequence(message, offset, end);
      sequences.push([sequence.id, sequence.docs]);
      offset = sequence.next;
    } else {
      throw new WireProtocolError(`unknown OP_MSG section kind ${kind}`);
    }
  }
  if (body === undefined) throw new WireProtocolError("OP_MSG without a body section");
  // A document sequence is the same as an array field of that name in the body.
  for (const [id, docs] of sequences) body[id] = docs;
  return { kind: "msg", header, moreToCome: (flags & MORE_TO_COME) !== 0, body };
}

/**
 * A kind-1 section: its size (counting itself), a cstring id, then documents up to its end. A size
 * that does not leave room for the id, or reaches past the message, is refused as mongod refuses it:
 * read as it stands, a size of -1 or 0 would point the next section back at this one, for ever.
 */
function readDocumentSequence(message: Buffer, offset: number, end: number): { id: string; docs: Document[]; next: number } {
  const size = readSize(message, offset, end);
  const sectionEnd = offset + size;
  if (size < 5 || sectionEnd > end) throw new WireProtocolError(`invalid OP_MSG document sequence size ${size}`);
  const id = readCString(message, offset + 4);
  if (id.next > sectionEnd) throw new WireProtocolError("OP_MSG document sequence id overruns its section");
  const docs: Document[] = [];
  for (let at = id.next; at < sectionEnd;) {
    const read = readDocument(message, at, sectionEnd);
    docs.push(read.doc);
    at = read.next;
  }
  return { id: id.value, docs, next: sectionEnd };
}

function header(length: number, requestId: number, responseTo: number, opCode: number): Buffer {
  const buffer = Buffer.alloc(HEADER_SIZE);
  buffer.writeInt32LE(length, 0);
  buffer.writeInt32LE(requestId, 4);
  buffer.writeInt32LE(responseTo, 8);
  buffer.writeInt32LE(opCode, 12);
  return buffer;
}

export function encodeMsg(requestId: number, responseTo: number, body: Document): Buffer {
  const doc = BSON.serialize(body);
  const prefix = Buffer.alloc(5); // flagBits 0, section kind 0
  return Buffer.concat([header(HEADER_SIZE + 5 + doc.length, requestId, responseTo, OP_MSG), prefix, doc]);
}

export function encodeReply(requestId: number, responseTo: number, body: Document): Buffer {
  const doc = BSON.serialize(body);
  // responseFlags(4) cursorID(8) startingFrom(4) numberReturned(4)
  const fields = Buffer.alloc(20);
  fields.writeInt32LE(1, 16);
  return Buffer.concat([header(HEADER_SIZE + 20 + doc.length, requestId, responseTo, OP_REPLY), fields, doc]);
}
