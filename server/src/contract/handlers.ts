/**
 * The types that bind route handlers to the contract: a handler for operation `Op` receives that
 * operation's body, path parameters and query as the generated types describe them, and must return
 * one of its documented success responses. A contract operation without a handler fails to compile.
 */
import type { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Principal } from '../auth/principal.js';
import type { operations } from '../generated/openapi.js';
import type { OperationId } from './contract.js';

type JsonContent<T> = T extends { content: { 'application/json': infer Body } } ? Body : undefined;

/** The JSON request body of `Op` (undefined when it takes none). */
export type RequestBodyOf<Op extends OperationId> = operations[Op] extends { requestBody: infer Body } ? JsonContent<Body> : undefined;

/** The path parameters of `Op`. */
export type PathParamsOf<Op extends OperationId> = operations[Op]['parameters'] extends { path: infer Path }
  ? Path extends Record<string, unknown>
    ? Path
    : Record<string, never>
  : Record<string, never>;

/** The query parameters of `Op`. */
export type QueryOf<Op extends OperationId> = operations[Op]['parameters'] extends { query?: infer Query }
  ? Query extends Record<string, unknown>
    ? Query
    : Record<string, never>
  : Record<string, never>;

/** 302: a browser redirect (single sign-on), sent with a `location` header and no body. */
type SuccessStatus = 200 | 201 | 204 | 302;

/** One of the documented success responses of `Op`. */
export type ReplyOf<Op extends OperationId> = {
  [Status in keyof operations[Op]['responses'] & SuccessStatus]: {
    status: Status;
    body: JsonContent<operations[Op]['responses'][Status]>;
    headers?: Record<string, string>;
  };
}[keyof operations[Op]['responses'] & SuccessStatus];

/** What a handler is given. */
export interface HandlerContext<Op extends OperationId> {
  body: RequestBodyOf<Op>;
  params: PathParamsOf<Op>;
  query: QueryOf<Op>;
  principal: Principal;
  request: FastifyRequest;
  reply: FastifyReply;
}

/**
 * A success answer that is not JSON (an event stream, Prometheus text) or is JSON passed through
 * as bytes: sent as is, with `headers` (which must set `content-type`).
 */
export interface RawReply {
  status: 200;
  raw: string | Buffer | Readable;
  headers: Record<string, string>;
}

/** The handler of operation `Op`. */
export type Handler<Op extends OperationId> = (context: HandlerContext<Op>) => Promise<ReplyOf<Op> | RawReply> | ReplyOf<Op> | RawReply;

/** A handler for every operation of the contract. */
export type Handlers = { [Op in OperationId]: Handler<Op> };

/** Any handler, as the router calls it (types are checked where handlers are defined). */
export type UntypedHandler = (context: {
  body: unknown;
  params: unknown;
  query: unknown;
  principal: Principal;
  request: FastifyRequest;
  reply: FastifyReply;
}) => Promise<{ status: number; body?: unknown; raw?: RawReply['raw']; headers?: Record<string, string> }>;
