/**
 * Playground (`/playground`, `models:read`): chat with a model the user may use, the answer streamed
 * as it is written (`client.inference.streamChatCompletion`, server-sent events). The model is picked
 * from the running chat models (with `models:list`) or typed. The conversation lives in the page only;
 * **Stop** ends a streaming answer, keeping what arrived, and **Clear** starts over. The server
 * decides what the user may call: a refusal (a key's model restriction, a stopped model) is shown
 * in words.
 */
import { Autocomplete, Button, Group, Paper, Stack, Text, Textarea } from '@mantine/core';
import type { ChatMessage, Model } from '@svc/sdk';
import { useRef, useState } from 'react';
import { client } from '../api/client.js';
import { useLoader } from '../api/use-loader.js';
import { holds } from '../auth/permissions.js';
import { useMe } from '../auth/session.js';
import { ErrorAlert } from '../components/ErrorAlert.js';
import { PageHeader } from '../components/PageHeader.js';

/** One turn of the conversation as the page shows it. */
interface Turn {
  role: 'user' | 'assistant';
  content: string;
}

/** The running models that chat (none without `models:list`: the UID is typed then). */
function useChatModels(mayList: boolean) {
  return useLoader(() => (mayList ? client.models.list() : Promise.resolve<Model[]>([])));
}

export function PlaygroundPage() {
  const me = useMe();
  const mayList = holds(me.permissions, 'models:list');
  const models = useChatModels(mayList);
  const chatModels = (models.data ?? []).filter((model) => model.model_ability.includes('chat')).map((model) => model.model_uid);
  const [model, setModel] = useState('');
  const [draft, setDraft] = useState('');
  const [turns, setTurns] = useState<Turn[]>([]);
  const [streaming, setStreaming] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [modelError, setModelError] = useState<string | null>(null);
  /** Bumped by every send and by Stop: a stream whose number is no longer current stops updating. */
  const generation = useRef(0);

  const chosenModel = model.trim() === '' ? (chatModels[0] ?? '') : model.trim();

  const send = async () => {
    const text = draft.trim();
    if (text === '') return;
    if (chosenModel === '') {
      setModelError('Choose a model to chat with');
      return;
    }
    setModelError(null);
    setError(null);
    const history: Turn[] = [...turns, { role: 'user', content: text }];
    setTurns([...history, { role: 'assistant', content: '' }]);
    setDraft('');
    setStreaming(true);
    const mine = ++generation.current;
    let answer = '';
    try {
      const messages: ChatMessage[] = history.map((turn) => ({ role: turn.role, content: turn.content }));
      for await (const chunk of client.inference.streamChatCompletion({ model: chosenModel, messages })) {
        if (generation.current !== mine) break; // stopped: what arrived stays
        answer += chunk.choices[0]?.delta.content ?? '';
        setTurns([...history, { role: 'assistant', content: answer }]);
      }
    } catch (caught) {
      if (generation.current !== mine) return;
      setError(caught);
      // A refused call leaves no empty answer behind; the question stays, to be sent again.
      if (answer === '') {
        setTurns(turns);
        setDraft(text);
      }
    } finally {
      if (generation.current === mine) setStreaming(false);
    }
  };
  const stop = () => {
    generation.current += 1;
    setStreaming(false);
  };

  return (
    <Stack>
      <PageHeader
        title="Playground"
        description="Chat with a model you may use. The answer streams in as the model writes it; nothing is kept after you leave the page."
        action={
          <Button size="sm" variant="default" disabled={streaming || turns.length === 0} onClick={() => setTurns([])}>
            Clear conversation
          </Button>
        }
      />
      <ErrorAlert error={models.error} title="Could not load the running models (a UID can still be typed)" />
      <Autocomplete
        label="Model"
        description={mayList ? 'A running chat model, or any model UID.' : 'The UID of a model you may use.'}
        placeholder={chatModels[0] ?? 'e.g. qwen2.5-instruct'}
        data={chatModels}
        value={model}
        onChange={setModel}
        openOnFocus={false}
        error={modelError}
        maw={420}
      />
      <Paper withBorder p="md" component="section" aria-label="Conversation" data-testid="conversation">
        {turns.length === 0 ? (
          <Text c="dimmed" size="sm">
            No message yet. Write one below.
          </Text>
        ) : (
          <Stack gap="sm">
            {turns.map((turn, index) => (
              <div key={index} data-role={turn.role}>
                <Text size="xs" fw={700} c="dimmed">
                  {turn.role === 'user' ? 'You' : chosenModel}
                </Text>
                <Text size="sm" style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
                  {turn.content === '' && streaming && index === turns.length - 1 ? '…' : turn.content}
                </Text>
              </div>
            ))}
          </Stack>
        )}
      </Paper>
      <Text size="sm" className="visually-hidden" role="status">
        {streaming ? 'The model is answering' : turns.length > 0 ? 'Answer complete' : ''}
      </Text>
      <ErrorAlert error={error} title="The model did not answer" />
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void send();
        }}
      >
        <Stack gap="xs">
          <Textarea
            label="Message"
            description="Enter sends; Shift+Enter starts a new line."
            autosize
            minRows={2}
            maxRows={8}
            value={draft}
            onChange={(event) => setDraft(event.currentTarget.value)}
            onKeyDown={(event) => {
              if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
                event.preventDefault();
                if (!streaming) void send();
              }
            }}
          />
          <Group justify="flex-end">
            {streaming && (
              <Button variant="default" onClick={stop}>
                Stop
              </Button>
            )}
            <Button type="submit" loading={streaming} disabled={draft.trim() === ''}>
              Send
            </Button>
          </Group>
        </Stack>
      </form>
    </Stack>
  );
}
