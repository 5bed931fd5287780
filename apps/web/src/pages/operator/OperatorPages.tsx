// The operator pages' frame: the server allows them to operators only; other people never see the
// links, and anyone else who opens one of their addresses is told whose they are.
import { Outlet } from "react-router";
import { useConsole } from "../../session";
import { PageHeader } from "../../ui";

export function OperatorPages() {
  const { isOperator } = useConsole();
  if (!isOperator)
    return (
      <>
        <PageHeader title="Operators only" />
        <p className="lead">These pages are for the people who run the service.</p>
      </>
    );
  return <Outlet />;
}
