/**
 * The UI's session: whether the instance still needs setup, who is logged in (from
 * `GET /v1/auth/me`), and login/logout. On load it asks the server for the setup status, then tries
 * to resume the browser session from its HttpOnly cookie, so a page reload keeps the user logged in.
 */
import type { Me, SetupStatus } from '@svc/sdk';
import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { client } from '../api/client.js';

/** Where the UI stands. */
export type SessionState =
  | { phase: 'loading' }
  | { phase: 'unreachable'; error: unknown }
  | { phase: 'setup'; setup: SetupStatus }
  | { phase: 'anonymous'; setup: SetupStatus }
  | { phase: 'ready'; setup: SetupStatus; me: Me };

interface SessionContextValue {
  state: SessionState;
  /** Logs in (browser session) and loads the account. */
  login(username: string, password: string): Promise<void>;
  /** Ends the session on the server, clears the cookie and returns to the login page. */
  logout(): Promise<void>;
  /** Reloads the setup status and the account (after setup, or when permissions may have changed). */
  reload(): Promise<void>;
  /** The username the login page starts with: the administrator just created by setup, else empty. */
  suggestedUsername: string;
  /** Remembers the username for the login page (setup calls it with the new administrator). */
  suggestUsername(username: string): void;
}

const SessionContext = createContext<SessionContextValue | null>(null);

async function loadState(resume: boolean): Promise<SessionState> {
  const setup = await client.setup.status();
  if (setup.needs_setup) return { phase: 'setup', setup };
  // Without a session, `me` still answers when authentication is switched off (SVC_AUTH_ADVANCED=false):
  // the caller is then the anonymous account holding every permission, and the app opens directly.
  if (resume) await client.resumeBrowserSession();
  try {
    return { phase: 'ready', setup, me: await client.auth.me() };
  } catch {
    return { phase: 'anonymous', setup };
  }
}

/** Provides the session to the app. */
export function SessionProvider({ children }: { children: ReactNode }) {
  const [state, setState] = useState<SessionState>({ phase: 'loading' });
  const [suggestedUsername, suggestUsername] = useState('');

  const load = useCallback(async (resume: boolean) => {
    try {
      setState(await loadState(resume));
    } catch (error) {
      setState({ phase: 'unreachable', error });
    }
  }, []);

  useEffect(() => {
    void load(true);
  }, [load]);

  const value = useMemo<SessionContextValue>(
    () => ({
      state,
      login: async (username, password) => {
        await client.startBrowserSession(username, password);
        await load(false);
      },
      logout: async () => {
        const signedInWithProvider = state.phase === 'ready' && state.me.source === 'oidc';
        try {
          await client.logout();
        } finally {
          await load(false);
        }
        // A single sign-on account also leaves the provider's session when it advertises logout
        // (RP-initiated logout); the provider sends the browser back to /login.
        if (signedInWithProvider) {
          const offer = await client.auth.ssoOptions().catch(() => null);
          if (offer?.end_session_supported === true) window.location.assign('/v1/auth/oidc/logout');
        }
      },
      reload: () => load(state.phase === 'ready' ? false : true),
      suggestedUsername,
      suggestUsername,
    }),
    [state, load, suggestedUsername],
  );
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

/** The session; use inside {@link SessionProvider}. */
export function useSession(): SessionContextValue {
  const value = useContext(SessionContext);
  if (value === null) throw new Error('useSession outside SessionProvider');
  return value;
}

/** The shortest password the server accepts (from the setup status; 15 until that is known). */
export function usePasswordMinLength(): number {
  const { state } = useSession();
  return state.phase === 'ready' ? state.setup.password_min_length : 15;
}

/** The logged-in account; use only on pages rendered for a ready session. */
export function useMe(): Me {
  const { state } = useSession();
  if (state.phase !== 'ready') throw new Error('useMe without a logged-in session');
  return state.me;
}
