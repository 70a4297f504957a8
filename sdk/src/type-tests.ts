/**
 * Type tests: proof that the SDK's types come from the contract. Nothing here runs: the functions are
 * never called and every import is type-only, so importing the compiled file does nothing.
 *
 * `tsc -b sdk` is the test. Each `// @ts-expect-error` line must fail to compile; if one of them ever
 * compiled cleanly (a body field loosened to `any`, a path no longer checked), TypeScript would report
 * "Unused '@ts-expect-error' directive" and the build would fail. The lines without the directive
 * must compile as they are.
 */
import type { Client as FetchClient } from 'openapi-fetch';
import type { APIError, ChatCompletionChunk, ChatCompletionRequest, Client, EmbeddingList, ErrorCode, Me, PermissionInput, RateLimitError, Stream, TokenPair, User, paths } from './index.js';

/** The public Client: bodies, required fields and permission names are checked against the contract. */
export async function clientCallsAreTyped(client: Client): Promise<void> {
  // Positive: what the contract allows compiles.
  const created: User = await client.users.create({ username: 'alice', password: 'correct horse battery staple', permissions: ['models:list', 'keys:create'] });
  await client.users.create({ username: 'bob', password: 'correct horse battery staple', permissions: ['models:start'], must_change_password: true });
  await client.users.update(created.id, { enabled: false });
  await client.users.setPermissions(created.id, ['admin']);
  await client.keys.create({ name: 'ci', model_permissions: [{ permission_type: 'model_type', permission_value: 'LLM' }] });
  const pair: TokenPair = await client.login('admin', 'correct horse battery staple');
  const seconds: number = pair.expires_in;
  const me: Me = await client.auth.me();
  const authType: 'jwt' | 'api_key' | 'none' = me.auth_type;
  void seconds;
  void authType;

  // A wrong body field type.
  // @ts-expect-error username must be a string
  await client.users.create({ username: 1, password: 'x' });
  // @ts-expect-error enabled must be a boolean
  await client.users.update(created.id, { enabled: 'yes' });

  // A missing required field.
  // @ts-expect-error password is required
  await client.users.create({ username: 'alice' });
  // @ts-expect-error a key's name is a string
  await client.keys.create({ name: 42 });

  // An unknown permission name.
  // @ts-expect-error 'models:fly' is not a permission of the contract
  await client.users.create({ username: 'alice', password: 'correct horse battery staple', permissions: ['models:fly'] });
  // @ts-expect-error 'root' is not a permission of the contract
  await client.users.setPermissions(created.id, ['root']);
  // @ts-expect-error a legacy input name is not a stored permission
  const stored: User['permissions'][number] = 'models:start' satisfies PermissionInput;
  void stored;

  // An unknown model restriction.
  // @ts-expect-error 'chat' is not a model type of the contract
  await client.keys.create({ name: 'ci', model_permissions: [{ permission_type: 'model_type', permission_value: 'chat' }] });

  // A wrong use of a return type.
  // @ts-expect-error list() answers an array of users, not one user
  const notOneUser: User = await client.users.list();
  // @ts-expect-error username is a string, not a number
  const notANumber: number = (await client.auth.me()).username;
  // @ts-expect-error delete() answers nothing to read
  (await client.users.delete(created.id)).id;
  // @ts-expect-error the session's tokens are not a User
  const notAUser: User = await client.login('admin', 'correct horse battery staple');
  void notOneUser;
  void notANumber;
  void notAUser;
}

/** The openapi-fetch client underneath: paths, methods, path parameters and bodies come from the contract. */
export async function fetchClientIsTyped(api: FetchClient<paths>): Promise<void> {
  // Positive.
  const { data: status } = await api.GET('/status');
  const version: string | undefined = status?.version;
  void version;
  await api.GET('/v1/admin/users/{user_id}', { params: { path: { user_id: 'user-1' } } });
  await api.POST('/v1/auth/login', { body: { username: 'admin', password: 'correct horse battery staple' } });
  const { data: users } = await api.GET('/v1/admin/users');
  const firstName: string | undefined = users?.[0]?.username;
  void firstName;

  // A wrong path.
  // @ts-expect-error no such path in the contract
  await api.GET('/v1/admin/usres', {});
  // @ts-expect-error the contract has no /v1/users (it is /v1/admin/users)
  await api.POST('/v1/users', { body: { username: 'alice', password: 'correct horse battery staple' } });

  // A path that exists, with a method it does not have.
  // @ts-expect-error login is POST only
  await api.GET('/v1/auth/login', {});
  // @ts-expect-error users are not deleted as a collection
  await api.DELETE('/v1/admin/users', {});

  // A missing or misnamed path parameter.
  // @ts-expect-error user_id is required
  await api.GET('/v1/admin/users/{user_id}');
  // @ts-expect-error the parameter is user_id, not id
  await api.GET('/v1/admin/users/{user_id}', { params: { path: { id: 'user-1' } } });

  // A wrong or missing body.
  // @ts-expect-error refresh_token must be a string
  await api.POST('/v1/auth/refresh', { body: { refresh_token: 42 } });
  // @ts-expect-error login needs a body
  await api.POST('/v1/auth/login');

  // A wrong use of the answer.
  const { data: me } = await api.GET('/v1/auth/me');
  // @ts-expect-error permissions is an array of permission names
  const permissions: string = me?.permissions ?? '';
  void permissions;
}

/** Errors carry the contract's codes as a union, so a switch narrows and a typo does not compile. */
export function errorCodesAreTyped(error: APIError): string {
  // Positive: every contract code is accepted and a switch narrows.
  const known: ErrorCode = 'token_expired';
  void known;
  // @ts-expect-error not a code of the contract
  const unknown: ErrorCode = 'token_has_expired';
  void unknown;
  // @ts-expect-error comparing with a code the contract does not have can never be true
  if (error.code === 'rate_limited') return 'never';
  switch (error.code) {
    case 'token_expired':
    case 'invalid_refresh_token':
      return 'log in again';
    case undefined:
      return `HTTP ${error.status}`;
    default:
      return error.code;
  }
}

/** Inference bodies: OpenAI's fields and content parts are typed; unknown fields do not compile. */
export async function inferenceCallsAreTyped(client: Client): Promise<void> {
  // Positive: content as an array of parts, OpenAI's sampling fields, tools and stream options.
  await client.inference.chatCompletion({
    model: 'my-echo',
    messages: [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: [{ type: 'text', text: 'hi' }, { type: 'image_url', image_url: { url: 'https://example.com/cat.png', detail: 'low' } }] },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call-1', type: 'function', function: { name: 'f', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'call-1', content: '42' },
    ],
    temperature: 0.2,
    top_p: 0.9,
    max_completion_tokens: 64,
    stop: ['\n'],
    seed: 7,
    tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }],
    tool_choice: 'auto',
    response_format: { type: 'json_object' },
  });
  const stream: Stream<ChatCompletionChunk> = client.inference.streamChatCompletion({ model: 'm', messages: [{ role: 'user', content: 'hi' }], stream_options: { include_usage: true } });
  const [left, right]: [Stream<ChatCompletionChunk>, Stream<ChatCompletionChunk>] = stream.tee();
  const bytes: ReadableStream<Uint8Array> = left.toReadableStream();
  right.controller.abort();
  void bytes;
  for await (const chunk of client.inference.streamCompletion({ model: 'm', prompt: 'p' })) {
    const tokens: number | undefined = chunk.usage?.total_tokens;
    void tokens;
  }
  // A field the contract does not name (a typo) does not compile, in every inference body.
  // @ts-expect-error temprature is not a field: temperature is
  await client.inference.chatCompletion({ model: 'm', messages: [{ role: 'user', content: 'hi' }], temprature: 0.2 });
  // @ts-expect-error max_token is not a field: max_tokens is
  await client.inference.completion({ model: 'm', prompt: 'p', max_token: 5 });
  // @ts-expect-error inputs is not a field: input is
  await client.inference.embeddings({ model: 'm', inputs: ['a'] });
  // @ts-expect-error contnet is not a message field
  await client.inference.chatCompletion({ model: 'm', messages: [{ role: 'user', contnet: 'hi' }] });
  // @ts-expect-error a content part needs its type
  await client.inference.chatCompletion({ model: 'm', messages: [{ role: 'user', content: [{ text: 'hi' }] }] });
  // @ts-expect-error a content part's text is a string
  await client.inference.chatCompletion({ model: 'm', messages: [{ role: 'user', content: [{ type: 'text', text: 42 }] }] });
  // @ts-expect-error temperature is a number
  await client.inference.chatCompletion({ model: 'm', messages: [{ role: 'user', content: 'hi' }], temperature: 'warm' });
  // @ts-expect-error gpu_count is not a launch field
  await client.models.launch({ model_name: 'echo', gpu_count: 1 });
  // A field outside the contract still reaches the server through a type assertion.
  await client.inference.chatCompletion({ model: 'm', messages: [{ role: 'user', content: 'hi' }], top_k: 40 } as ChatCompletionRequest);

  // Embeddings: number[] by default and for float; a base64 string for base64.
  const floats: EmbeddingList = await client.inference.embeddings({ model: 'm', input: 'a' });
  const first: number | undefined = floats.data[0]?.embedding[0];
  const explicit: number[] | undefined = (await client.inference.embeddings({ model: 'm', input: 'a', encoding_format: 'float' })).data[0]?.embedding;
  const encoded: string | undefined = (await client.inference.embeddings({ model: 'm', input: 'a', encoding_format: 'base64' })).data[0]?.embedding;
  // @ts-expect-error a base64 embedding is a string, not numbers
  const notNumbers: number[] | undefined = (await client.inference.embeddings({ model: 'm', input: 'a', encoding_format: 'base64' })).data[0]?.embedding;
  void first;
  void explicit;
  void encoded;
  void notNumbers;
}

/** Per-call options come last, as in openai-node. */
export async function perCallOptionsAreTyped(client: Client, error: RateLimitError): Promise<void> {
  const controller = new AbortController();
  await client.auth.me({ signal: controller.signal, timeout: 5_000, maxRetries: 0, headers: { 'x-trace-id': 't' } });
  await client.keys.list({ owner: 'user-1' }, { maxRetries: 1 });
  await client.users.create({ username: 'alice', password: 'correct horse battery staple' }, { timeout: 1_000 });
  // @ts-expect-error timeout is milliseconds, a number
  await client.auth.me({ timeout: '5s' });
  // @ts-expect-error retries is not an option: maxRetries is
  await client.auth.me({ retries: 1 });
  const seconds: number | undefined = error.retryAfter;
  void seconds;
}
