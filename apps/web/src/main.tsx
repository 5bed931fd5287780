import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { createBrowserRouter, RouterProvider } from "react-router";
import { ApiFailure } from "./api";
import { Layout } from "./pages/Layout";
import { Login } from "./pages/Login";
import { Keys } from "./pages/Keys";
import { UsagePage } from "./pages/Usage";
import { Runs } from "./pages/Runs";
import { RunPage } from "./pages/RunPage";
import { Webhooks } from "./pages/Webhooks";
import { Weights } from "./pages/Weights";
import { Batches } from "./pages/Batches";
import { WebhookPage } from "./pages/WebhookPage";
import { Models } from "./pages/Models";
import { ModelPage } from "./pages/ModelPage";
import { NotFound } from "./pages/NotFound";
import { SecurityLog } from "./pages/AuditLog";
import { OperatorAccountPage } from "./pages/operator/AccountPage";
import { OperatorAccounts } from "./pages/operator/Accounts";
import { OperatorAudit } from "./pages/operator/Audit";
import { OperatorModels } from "./pages/operator/Models";
import { OperatorPages } from "./pages/operator/OperatorPages";
import "./styles.css";

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      // A 4xx will not change by asking again; a network blip or a 503 may.
      retry: (count, error) =>
        count < 2 && !(error instanceof ApiFailure && error.status >= 400 && error.status < 500),
      refetchOnWindowFocus: true,
      staleTime: 5_000,
    },
  },
});

const router = createBrowserRouter(
  [
    { path: "/login", element: <Login /> },
    {
      path: "/",
      element: <Layout />,
      children: [
        { index: true, element: <Runs /> },
        { path: "runs", element: <Runs /> },
        { path: "runs/:runId", element: <RunPage /> },
        { path: "models", element: <Models /> },
        { path: "models/*", element: <ModelPage /> },
        { path: "keys", element: <Keys /> },
        { path: "usage", element: <UsagePage /> },
        { path: "weights", element: <Weights /> },
        { path: "batches", element: <Batches /> },
        { path: "webhooks", element: <Webhooks /> },
        { path: "webhooks/:webhookId", element: <WebhookPage /> },
        { path: "security", element: <SecurityLog /> },
        {
          path: "operator",
          element: <OperatorPages />,
          children: [
            { path: "accounts", element: <OperatorAccounts /> },
            { path: "accounts/:accountId", element: <OperatorAccountPage /> },
            { path: "models", element: <OperatorModels /> },
            { path: "audit", element: <OperatorAudit /> },
          ],
        },
        { path: "*", element: <NotFound /> },
      ],
    },
  ],
  { basename: "/console" },
);

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} />
    </QueryClientProvider>
  </StrictMode>,
);
