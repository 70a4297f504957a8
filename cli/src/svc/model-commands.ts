/**
 * The model commands, at the top level as in the reference CLI (`svc launch --model-name echo -ak
 * sk-…`): `svc list`, `launch`, `terminate` (`models:list`, `models:write`), and `register`,
 * `unregister`, `registrations` for custom model families (`models:register`, `models:list`).
 * A key with `model_permissions` reaches only the models they allow; the server's 403 names the model.
 */
import { readFile } from 'node:fs/promises';
import { NotFoundError, PermissionDeniedError, type Client, type Model, type ModelEngine, type ModelFamilyDefinition, type ModelLaunch, type ModelRegistration, type ModelType } from '@svc/sdk';
import { Command, Option } from 'commander';
import { CliError, ExitCode } from '../exit-codes.js';
import { showTime, type Column } from '../output.js';
import { promptSecret } from '../prompt.js';
import { createContext, withConnectionOptions, type ConnectionOptions } from './context.js';
import { definedFields } from './defined-fields.js';

/** The model types of the contract (`ModelType`). */
export const modelTypes: readonly ModelType[] = ['LLM', 'embedding', 'rerank', 'image', 'video', 'audio'];

/** The engines of the contract (`ModelEngine`). */
export const modelEngines: readonly ModelEngine[] = ['builtin', 'upstream'];

const modelColumns: Column<Model>[] = [
  { heading: 'UID', value: (m) => m.model_uid },
  { heading: 'NAME', value: (m) => m.model_name },
  { heading: 'TYPE', value: (m) => m.model_type },
  { heading: 'ENGINE', value: (m) => m.model_engine },
  { heading: 'ABILITIES', value: (m) => m.model_ability.join(', ') },
  { heading: 'UPSTREAM', value: (m) => (m.upstream === null ? '-' : `${m.upstream.base_url} (${m.upstream.model})`) },
  { heading: 'LAUNCHED', value: (m) => showTime(new Date(m.created * 1000).toISOString()) },
];

const registrationColumns: Column<ModelRegistration>[] = [
  { heading: 'NAME', value: (r) => r.model_name },
  { heading: 'TYPE', value: (r) => r.model_type },
  { heading: 'ABILITIES', value: (r) => r.model_ability.join(', ') },
  { heading: 'BUILT-IN', value: (r) => (r.is_builtin ? 'yes' : 'no') },
  { heading: 'SYSTEM FIRST', value: (r) => (r.requires_system_message_first ? 'yes' : 'no') },
  { heading: 'DIMENSIONS', value: (r) => (r.dimensions === null ? '-' : String(r.dimensions)) },
  { heading: 'DESCRIPTION', value: (r) => r.description ?? '-' },
];

/** `--model-type`, one of the contract's types; `LLM` when absent where a default makes sense. */
function modelTypeOption(description: string, defaultType?: ModelType): Option {
  const option = new Option('--model-type <type>', description).choices(modelTypes);
  return defaultType === undefined ? option : option.default(defaultType);
}

interface LaunchOptions extends ConnectionOptions {
  modelName: string;
  modelUid?: string;
  modelType?: ModelType;
  modelEngine?: ModelEngine;
  upstreamBaseUrl?: string;
  upstreamApiKey?: string;
  upstreamModel?: string;
}

/** Adds `svc list`, `launch`, `terminate`, `register`, `unregister` and `registrations` to `program`. */
export function registerModelCommands(program: Command): void {
  withConnectionOptions(program.command('list'))
    .description('List the running models you may use (models:list)')
    .action(async (options: ConnectionOptions) => {
      const context = createContext(options);
      context.output.table(await context.client.models.list(), modelColumns);
    });

  withConnectionOptions(program.command('launch'))
    .description('Launch a model: a built-in or registered family, or an OpenAI-compatible upstream (models:write)')
    .requiredOption('--model-name <name>', 'the model family, e.g. echo, hash-embedding or a registered one')
    .option('--model-uid <uid>', 'the uid to serve it under (default: the model name)')
    .addOption(modelTypeOption("the model's type (default: the family's)"))
    .addOption(new Option('--model-engine <engine>', 'the engine (default: upstream when --upstream-base-url is given, else builtin)').choices(modelEngines))
    .option('--upstream-base-url <url>', "the upstream's OpenAI base URL, e.g. http://127.0.0.1:8000/v1")
    .option('--upstream-api-key <key>', 'the key svc sends to the upstream (stored encrypted, never shown); - reads it from a prompt or stdin')
    .option('--upstream-model <name>', 'the model name the upstream knows (default: the model name)')
    .action(async (options: LaunchOptions) => {
      const context = createContext(options);
      const upstreamApiKey = options.upstreamApiKey === '-' ? await promptSecret('Upstream API key: ') : options.upstreamApiKey;
      const modelType = options.modelType ?? (await familyType(context.client, options.modelName));
      const body: ModelLaunch = {
        model_name: options.modelName,
        ...definedFields({
          model_uid: options.modelUid,
          model_type: modelType,
          model_engine: options.modelEngine,
          upstream_base_url: options.upstreamBaseUrl,
          upstream_api_key: upstreamApiKey,
          upstream_model: options.upstreamModel,
        }),
      };
      const model = await context.client.models.launch(body).catch((error: unknown) => {
        if (!(error instanceof NotFoundError && error.code === 'model_family_not_found')) throw error;
        const type = modelType ?? 'LLM';
        throw new CliError(ExitCode.notFoundOrConflict, `no ${options.modelType === undefined ? '' : `${type} `}model family named ${options.modelName}; list them with: svc registrations --model-type ${type}`);
      });
      const where = model.upstream === null ? '' : ` at ${model.upstream.base_url}`;
      context.output.done(`Launched model ${model.model_uid} (${model.model_name}, ${model.model_type}, ${model.model_engine}${where}).`, model);
    });

  withConnectionOptions(program.command('terminate'))
    .description('Stop a running model (models:write)')
    .argument('[model-uid]', 'the model uid (or --model-uid)')
    .option('--model-uid <uid>', 'the model uid')
    .action(async (positional: string | undefined, options: ConnectionOptions & { modelUid?: string }) => {
      const modelUid = oneModelUid(positional, options.modelUid);
      const context = createContext(options);
      await context.client.models.stop(modelUid);
      context.output.done(`Terminated model ${modelUid}.`, { model_uid: modelUid, terminated: true });
    });

  withConnectionOptions(program.command('register'))
    .description('Register a custom model family from a JSON definition (models:register)')
    .addOption(modelTypeOption('the type of the family', 'LLM'))
    .requiredOption('--file <path>', 'a JSON file holding the family definition, e.g. {"model_name": "my-assistant", "model_ability": ["chat"]}')
    .option('--persist', 'accepted for compatibility: registrations always persist')
    .action(async (options: ConnectionOptions & { modelType: ModelType; file: string; persist?: boolean }) => {
      const definition = await readDefinition(options.file);
      const context = createContext(options);
      const registered = await context.client.modelRegistrations.register(options.modelType, definition);
      context.output.done(`Registered model family ${registered.model_name} (${registered.model_type}: ${registered.model_ability.join(', ')}).`, registered);
    });

  withConnectionOptions(program.command('unregister'))
    .description('Unregister a custom model family; its running models must be terminated first (models:register)')
    .addOption(modelTypeOption('the type of the family', 'LLM'))
    .requiredOption('--model-name <name>', 'the family name')
    .action(async (options: ConnectionOptions & { modelType: ModelType; modelName: string }) => {
      const context = createContext(options);
      await context.client.modelRegistrations.unregister(options.modelType, options.modelName);
      context.output.done(`Unregistered model family ${options.modelName} (${options.modelType}).`, { model_name: options.modelName, model_type: options.modelType, unregistered: true });
    });

  withConnectionOptions(program.command('registrations'))
    .description('List the built-in and registered model families of a type (models:list)')
    .addOption(modelTypeOption('the type of the families', 'LLM'))
    .action(async (options: ConnectionOptions & { modelType: ModelType }) => {
      const context = createContext(options);
      context.output.table(await context.client.modelRegistrations.list(options.modelType), registrationColumns);
    });
}

/**
 * The type of the family named `modelName`, for a launch without `--model-type`: the one type that
 * has a built-in or registered family of that name. Undefined (the server's default, `LLM`) when no
 * type has one, or when the caller may not list families.
 */
async function familyType(client: Client, modelName: string): Promise<ModelType | undefined> {
  let found: ModelType[];
  try {
    const listings = await Promise.all(modelTypes.map(async (type) => ((await client.modelRegistrations.list(type)).some((family) => family.model_name === modelName) ? [type] : [])));
    found = listings.flat();
  } catch (error) {
    if (error instanceof PermissionDeniedError) return undefined;
    throw error;
  }
  if (found.length > 1) throw new CliError(ExitCode.usage, `there are model families named ${modelName} of several types (${found.join(', ')}); choose one with --model-type`);
  return found[0];
}

/** The uid from the argument or `--model-uid` (both only when they agree). */
function oneModelUid(positional: string | undefined, option: string | undefined): string {
  if (positional !== undefined && option !== undefined && positional !== option) {
    throw new CliError(ExitCode.usage, `two different model uids: ${JSON.stringify(positional)} and --model-uid ${JSON.stringify(option)}; give one`);
  }
  const uid = positional ?? option;
  if (uid === undefined) throw new CliError(ExitCode.usage, 'which model? give its uid: svc terminate <model-uid> (see svc list)');
  return uid;
}

/**
 * Reads a family definition: a JSON object. The server checks its fields (and that its
 * `model_type`, when present, matches `--model-type`).
 */
async function readDefinition(path: string): Promise<ModelFamilyDefinition> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    throw new CliError(ExitCode.usage, `cannot read --file ${path}: ${typeof code === 'string' ? code : String(error)}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new CliError(ExitCode.usage, `--file ${path} is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new CliError(ExitCode.usage, `--file ${path} must hold one JSON object (the family definition), e.g. {"model_name": "my-assistant"}`);
  }
  return value as ModelFamilyDefinition;
}
