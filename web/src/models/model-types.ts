/** The kinds of model the server knows (the contract's `ModelType`), and the contract's name rules. */
import type { ModelType } from '@svc/sdk';

// A record, so a new value of the contract's enum fails to compile until it is listed here.
const typeLabels: Readonly<Record<ModelType, string>> = {
  LLM: 'LLM',
  embedding: 'Embedding',
  rerank: 'Rerank',
  image: 'Image',
  video: 'Video',
  audio: 'Audio',
};

/** Every model type, in the order the UI lists them. */
export const modelTypes = Object.keys(typeLabels) as ModelType[];

/** Select options for the model types. */
export const modelTypeOptions = modelTypes.map((type) => ({ value: type, label: typeLabels[type] }));

/** The contract's pattern for a model family name (`ModelName`). */
export const modelNamePattern = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** The contract's pattern for a running model's uid (`ModelUid`). */
export const modelUidPattern = /^[A-Za-z0-9][A-Za-z0-9._:-]*$/;
