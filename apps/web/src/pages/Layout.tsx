import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { Navigate, NavLink, Outlet, useLocation, useNavigate } from "react-router";
import { call } from "../api";
import { ConsoleProvider, useConsole, useSessionQuery } from "../session";
import { ErrorMessage, Loading } from "../ui";

const NAV = [
  ["/runs", "Runs"],
  ["/models", "Models & playground"],
  ["/usage", "Usage & balance"],
  ["/keys", "API keys"],
  ["/weights", "Weights"],
  ["/batches", "Batches"],
  ["/webhooks", "Webhooks"],
] as const;

/** An owner's: what operators of the service did to the account. */
const OWNER_NAV = [["/security", "Security log"]] as const;

const OPERATOR_NAV = [
  ["/operator/accounts", "Accounts"],
  ["/operator/models", "Catalogue & queues"],
  ["/operator/audit", "Audit log"],
] as const;

export function Layout() {
  const session = useSessionQuery();
  const location = useLocation();
  if (session.isPending) return <Loading what="Opening the console" />;
  if (session.isError) return <ErrorMessage error={session.error} />;
  if (!session.data) return <Navigate to="/login" replace state={{ from: location.pathname }} />;
  return (
    <ConsoleProvider session={session.data}>
      <Shell />
    </ConsoleProvider>
  );
}

function Shell() {
  const { session, mode, setMode, isOperator, isOwner } = useConsole();
  const [menuOpen, setMenuOpen] = useState(false);
  const location = useLocation();
  // The operator pages and the security log stand outside the live and test worlds (operators
  // act on live figures): no switch and no test banner there.
  const outsideWorlds = location.pathname.startsWith("/operator") || location.pathname === "/security";
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const signOut = useMutation({
    mutationFn: () => call("/session/sign-out", { method: "POST" }),
    onSuccess: () => {
      queryClient.clear();
      void navigate("/login", { replace: true });
    },
  });

  // On navigation: close the phone menu and move focus to the new page's heading.
  useEffect(() => {
    setMenuOpen(false);
    document.querySelector<HTMLElement>("main h1")?.focus({ preventScroll: true });
  }, [location.pathname]);

  return (
    <div className={`shell ${outsideWorlds ? "mode-operator" : `mode-${mode}`}`}>
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <button
          type="button"
          className="menu-button"
          aria-expanded={menuOpen}
          aria-controls="nav"
          onClick={() => setMenuOpen(!menuOpen)}
        >
          Menu
        </button>
        <span className="brand">Model Run Service</span>
        {outsideWorlds ? (
          <span className="mode-switch operator-scope">
            {isOperator ? "Operator: the whole service" : "Operators' actions"}
          </span>
        ) : (
          <fieldset className="mode-switch">
            <legend className="visually-hidden">Data shown</legend>
            {(["live", "test"] as const).map((m) => (
              <label key={m} className={mode === m ? "on" : ""}>
                <input type="radio" name="mode" value={m} checked={mode === m} onChange={() => setMode(m)} />
                {m === "live" ? "Live" : "Test"}
              </label>
            ))}
          </fieldset>
        )}
        <span className="who" title={session.account.id}>
          {session.user.email} · {session.account.name} ({session.user.role})
        </span>
        <button
          type="button"
          className="secondary"
          onClick={() => signOut.mutate()}
          disabled={signOut.isPending}
        >
          Sign out
        </button>
      </header>
      {mode === "test" && !outsideWorlds ? (
        <div className="test-banner" role="note">
          Test mode: test runs and webhooks only; nothing is charged.
        </div>
      ) : null}
      <nav id="nav" className={menuOpen ? "open" : ""} aria-label="Console">
        <ul>
          {[...NAV, ...(isOwner ? OWNER_NAV : [])].map(([to, label]) => (
            <li key={to}>
              <NavLink to={to}>{label}</NavLink>
            </li>
          ))}
        </ul>
        {isOperator ? (
          <>
            <p className="nav-heading" id="operator-nav">
              Operator
            </p>
            <ul aria-labelledby="operator-nav">
              {OPERATOR_NAV.map(([to, label]) => (
                <li key={to}>
                  <NavLink to={to}>{label}</NavLink>
                </li>
              ))}
            </ul>
          </>
        ) : null}
      </nav>
      <main id="main">
        <ErrorMessage error={signOut.error} />
        <Outlet />
      </main>
    </div>
  );
}
