import { useQuery, useQueryClient } from "@tanstack/react-query";
import { createContext, useContext, useState, type ReactNode } from "react";
import { ApiFailure, call, setCsrfToken, type Mode, type Session } from "./api";

export function useSessionQuery() {
  return useQuery({
    queryKey: ["session"],
    queryFn: async () => {
      try {
        const session = await call<Session>("/session");
        setCsrfToken(session.csrf_token);
        return session;
      } catch (error) {
        if (error instanceof ApiFailure && error.status === 401) return null;
        throw error;
      }
    },
    staleTime: 60_000,
  });
}

interface ConsoleContext {
  session: Session;
  mode: Mode;
  setMode(mode: Mode): void;
  isOwner: boolean;
  /** Runs the service: the operator pages are theirs. */
  isOperator: boolean;
}

const Context = createContext<ConsoleContext | null>(null);

const MODE_KEY = "svc.console.mode";

export function ConsoleProvider({ session, children }: { session: Session; children: ReactNode }) {
  const [mode, setModeState] = useState<Mode>(() =>
    localStorage.getItem(MODE_KEY) === "live" ? "live" : "test",
  );
  const queryClient = useQueryClient();
  const setMode = (next: Mode) => {
    localStorage.setItem(MODE_KEY, next);
    setModeState(next);
    // Live and test are separate worlds: nothing of one is shown while the other is chosen.
    void queryClient.invalidateQueries({ predicate: (q) => q.queryKey[0] === "scoped" });
  };
  return (
    <Context.Provider
      value={{
        session,
        mode,
        setMode,
        isOwner: session.user.role === "owner",
        isOperator: session.user.role === "operator",
      }}
    >
      {children}
    </Context.Provider>
  );
}

export function useConsole(): ConsoleContext {
  const value = useContext(Context);
  if (!value) throw new Error("useConsole outside ConsoleProvider");
  return value;
}
