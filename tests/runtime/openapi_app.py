"""A small pet store written with FastAPI, whose own ``/openapi.json`` the OpenAPI tests read.

Most endpoints echo what arrived (method, raw path, query, the headers that matter, cookies,
body), so a test sees the request a call made. `RAW_PATHS` records every path as sent on the
wire (the app runs in the test's process, in a thread), so a test can check that a path
parameter did not escape its segment.
"""

from __future__ import annotations

import asyncio
from enum import StrEnum
from typing import Annotated, Any

from fastapi import Cookie, Depends, FastAPI, Header, HTTPException, Request
from fastapi.responses import JSONResponse, PlainTextResponse, Response
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from pydantic import BaseModel

TOKEN = "s3cret-token"
"""The bearer token /secret accepts."""
RAW_PATHS: list[str] = []
"""Every request's path as it arrived, percent-encoding kept."""

app = FastAPI(title="Pet store", version="1.0")
bearer = HTTPBearer(auto_error=False)


class Status(StrEnum):
    available = "available"
    sold = "sold"


class Owner(BaseModel):
    name: str
    email: str | None = None


class Pet(BaseModel):
    name: str
    tag: str | None = None
    owner: Owner
    """A nested model: the document refers to it by $ref."""


@app.middleware("http")
async def record_path(request: Request, call_next: Any) -> Response:
    RAW_PATHS.append(request.scope["raw_path"].decode())
    response: Response = await call_next(request)
    return response


def _echo(request: Request, **fields: Any) -> dict[str, Any]:
    return {"method": request.method, "raw_path": request.scope["raw_path"].decode(),
            "query": str(request.url.query),
            "authorization": request.headers.get("authorization"),
            "cookies": dict(request.cookies), **fields}


@app.get("/pets", operation_id="listPets", tags=["pets"], summary="List pets")
async def list_pets(request: Request, limit: int = 10, status: Status = Status.available,
                    x_request_id: Annotated[str | None, Header()] = None,
                    session: Annotated[str | None, Cookie()] = None) -> dict[str, Any]:
    """Pets in the store, newest first."""
    return _echo(request, limit=limit, status=status.value, x_request_id=x_request_id,
                 session=session)


@app.get("/pets/{pet_id}", operation_id="getPet", tags=["pets"], summary="Get one pet")
async def get_pet(request: Request, pet_id: str) -> dict[str, Any]:
    if pet_id == "missing":
        raise HTTPException(404, detail=f"no pet {pet_id}")
    return _echo(request, pet_id=pet_id)


@app.post("/pets", operation_id="createPet", tags=["pets"], summary="Add a pet")
async def create_pet(request: Request, pet: Pet) -> dict[str, Any]:
    if pet.name == "taken":
        raise HTTPException(422, detail="a pet named 'taken' exists already")
    return _echo(request, pet=pet.model_dump())


@app.delete("/pets/{pet_id}", operation_id="deletePet", tags=["pets"], deprecated=True)
async def delete_pet(pet_id: str) -> dict[str, str]:
    return {"deleted": pet_id}


@app.post("/pets/{pet_id}/photo", operation_id="uploadPhoto", tags=["pets"],
          openapi_extra={"requestBody": {"required": True, "content": {
              "multipart/form-data": {"schema": {"type": "object", "properties": {
                  "file": {"type": "string", "format": "binary"}}}}}}})
async def upload_photo(pet_id: str) -> dict[str, str]:
    return {"uploaded": pet_id}


@app.get("/secret", operation_id="readSecret", summary="Needs a bearer token")
async def read_secret(request: Request, credentials: Annotated[
        HTTPAuthorizationCredentials | None, Depends(bearer)]) -> dict[str, Any]:
    if credentials is None or credentials.credentials != TOKEN:
        raise HTTPException(401, detail="a valid bearer token is required")
    return _echo(request, secret="the answer is 42")


@app.get("/whoami", operation_id="whoami", summary="Declares its Authorization header")
async def whoami(request: Request,
                 authorization: Annotated[str | None, Header()] = None) -> dict[str, Any]:
    return _echo(request)


@app.get("/slow", operation_id="slow", summary="Answers after a long time")
async def slow() -> dict[str, str]:
    await asyncio.sleep(20)
    return {"finally": "done"}


@app.get("/big", operation_id="bigText", summary="A megabyte of text")
async def big() -> PlainTextResponse:
    return PlainTextResponse("x" * 1_000_000)


@app.get("/big.json", operation_id="bigJson", summary="A megabyte of JSON")
async def big_json() -> JSONResponse:
    return JSONResponse([f"item {i:07d}" for i in range(80_000)])


@app.get("/limited", operation_id="limited", summary="Always over its rate limit")
async def limited() -> JSONResponse:
    return JSONResponse({"detail": "slow down"}, status_code=429, headers={"Retry-After": "7"})


@app.get("/boom", operation_id="boom", summary="Always fails")
async def boom() -> JSONResponse:
    return JSONResponse({"detail": "database unavailable"}, status_code=503)
