import type { RequestHandler } from "express";
import { newId } from "@svc/core";

const CLIENT_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Echoes a client's well-formed X-Request-Id, otherwise makes one; every response carries it. */
export const requestId: RequestHandler = (req, res, next) => {
  const given = req.get("x-request-id");
  const id = given && CLIENT_ID.test(given) ? given : newId("req");
  res.locals.requestId = id;
  res.set("X-Request-Id", id);
  next();
};
