// chapter.js - the entry point of a chapter whose widgets need no wiring between them (each
// stands alone): the shared start (app.js).
import { start } from "./app.js";

start();
