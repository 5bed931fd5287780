import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { Navigate, useLocation, useNavigate } from "react-router";
import { call, setCsrfToken } from "../api";
import { useSessionQuery } from "../session";
import { ErrorMessage } from "../ui";

export function Login() {
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const session = useSessionQuery();
  const navigate = useNavigate();
  const location = useLocation();
  const queryClient = useQueryClient();
  const from = (location.state as { from?: string } | null)?.from ?? "/runs";
  const signIn = useMutation({
    mutationFn: () => call<{ csrf_token: string }>("/session", { method: "POST", body: { email, password } }),
    onSuccess: async (data) => {
      setCsrfToken(data.csrf_token);
      await queryClient.invalidateQueries({ queryKey: ["session"] });
      void navigate(from, { replace: true });
    },
  });
  if (session.data) return <Navigate to={from} replace />;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    signIn.mutate();
  };
  return (
    <main className="login">
      <form onSubmit={submit} className="card" aria-labelledby="login-title">
        <p className="brand">Model Run Service</p>
        <h1 id="login-title">Sign in to the console</h1>
        <label>
          Email
          <input
            type="email"
            name="email"
            autoComplete="username"
            required
            value={email}
            onChange={(e) => setEmail(e.target.value)}
          />
        </label>
        <label>
          Password
          <input
            type="password"
            name="password"
            autoComplete="current-password"
            required
            value={password}
            onChange={(e) => setPassword(e.target.value)}
          />
        </label>
        <ErrorMessage error={signIn.error} />
        <button type="submit" disabled={signIn.isPending}>
          {signIn.isPending ? "Signing in…" : "Sign in"}
        </button>
        <p className="muted small">
          Accounts and people are created by the operator: <code>pnpm svc users create</code>.
        </p>
      </form>
    </main>
  );
}
