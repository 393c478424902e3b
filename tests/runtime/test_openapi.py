"""OpenAPI services as tools, against a real FastAPI app on 127.0.0.1 (tests/runtime/openapi_app.py)
whose document is the one FastAPI generates, fetched from its own /openapi.json."""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

import pytest
from servers import ServerThread

from toolcalls import ToolCall
from toolcalls.runtime import (
    ApiKeyAuth,
    BasicAuth,
    BearerAuth,
    CancelToken,
    Denied,
    Executor,
    Failed,
    InvalidArgs,
    Json,
    OpenApiError,
    OpenApiTools,
    Permissions,
    RateLimited,
    Text,
    TimedOut,
    ToolRegistry,
    ToolResult,
)

from . import openapi_app

pytest.importorskip("fastapi")


@pytest.fixture(scope="module")
def service() -> Iterator[str]:
    with ServerThread(openapi_app.app) as server:
        yield server.url


def tools_for(url: str, **options: Any) -> OpenApiTools:
    return OpenApiTools(f"{url}/openapi.json", server="pets", **options)


def run(service: OpenApiTools | ToolRegistry, name: str, validate: bool = True,
        **arguments: Any) -> ToolResult:
    registry = service if isinstance(service, ToolRegistry) else ToolRegistry()
    if isinstance(service, OpenApiTools):
        service.install(registry)
    executor = Executor(registry, validate=validate, result_limit=None,  # writes would ask
                        permissions=Permissions(allow=["pets__*"]))
    call = ToolCall(id="c1", name=f"pets__{name}", arguments=arguments, source="native")
    (result,) = executor.run_sync([call]).results
    return result


def echoed(result: ToolResult) -> dict[str, Any]:
    assert not result.is_error, result.text()
    (item,) = result.content
    assert isinstance(item, Json)
    value: dict[str, Any] = item.value
    return value


# -- the tools a document becomes ------------------------------------------------------------

def test_each_operation_becomes_one_tool_named_by_operation_id(service: str) -> None:
    registry = ToolRegistry()
    added = tools_for(service).install(registry)
    assert [tool.name for tool in added][:3] == ["pets__listPets", "pets__createPet",
                                                 "pets__getPet"]
    assert {(tool.origin, tool.server) for tool in added} == {("openapi", "pets")}
    listed = registry.find("pets__listPets")
    assert listed is not None
    assert listed.definition.description == "List pets\n\nPets in the store, newest first."


def test_writes_ask_before_they_run_unless_an_allow_rule_lets_them(service: str) -> None:
    registry = ToolRegistry()
    tools_for(service).install(registry)
    dangerous = {tool.name: tool.definition.is_dangerous for tool in registry}
    assert dangerous["pets__listPets"] is False and dangerous["pets__createPet"] is True
    call = ToolCall(id="c1", name="pets__createPet", source="native",
                    arguments={"body": {"name": "Rex", "owner": {"name": "Ann"}}})
    assert [p.call.id for p in Executor(registry).run_sync([call]).pending] == ["c1"]
    allowed = Executor(registry, permissions=Permissions(allow=["pets__createPet"]))
    assert allowed.run_sync([call]).complete


def test_deprecated_and_multipart_operations_are_skipped_with_a_reason(service: str) -> None:
    service_tools = tools_for(service)
    reasons = {(s.method, s.path): s.reason for s in service_tools.skipped}
    assert reasons == {("DELETE", "/pets/{pet_id}"): "deprecated",
                       ("POST", "/pets/{pet_id}/photo"):
                           "its request body is not JSON (multipart/form-data)"}
    names = [tool.name for tool in service_tools.tools]
    assert "deletePet" not in names and "uploadPhoto" not in names
    kept = tools_for(service, include_deprecated=True).tools
    assert "deletePet" in [tool.name for tool in kept]


def test_parameters_and_body_are_one_argument_schema_with_refs_resolved(service: str) -> None:
    tools = {tool.name: tool.definition.parameters for tool in tools_for(service).tools}
    listing = tools["listPets"]["properties"]
    assert listing["limit"]["default"] == 10
    assert listing["status"]["enum"] == ["available", "sold"]
    assert {"x-request-id", "session"} <= set(listing)
    create = tools["createPet"]
    assert "$ref" not in json.dumps(create)
    assert create["required"] == ["body"]
    owner = create["properties"]["body"]["properties"]["owner"]
    assert owner["required"] == ["name"] and "email" in owner["properties"]
    assert tools["getPet"]["required"] == ["pet_id"]


def test_document_by_url_and_by_dict_give_the_same_tools(service: str) -> None:
    by_url = tools_for(service)
    by_dict = OpenApiTools(openapi_app.app.openapi(), server="pets", base_url=service)
    assert [t.definition for t in by_dict.tools] == [t.definition for t in by_url.tools]
    assert by_url.base_url == service + "/"
    assert echoed(run(by_dict, "getPet", pet_id="7"))["pet_id"] == "7"


def test_include_and_exclude_filter_by_operation_id_or_tag(service: str) -> None:
    only_pets = tools_for(service, include=["pets"], exclude=["createPet"])
    assert [tool.name for tool in only_pets.tools] == ["listPets", "getPet"]
    reasons = {s.name: s.reason for s in only_pets.skipped}
    assert reasons["createPet"] == "excluded by the filter"
    assert reasons["boom"] == "not included by the filter"


# -- requests --------------------------------------------------------------------------------

def test_query_header_and_cookie_arguments_arrive_where_declared(service: str) -> None:
    got = echoed(run(tools_for(service), "listPets", limit=3, status="sold",
                     **{"x-request-id": "r-1", "session": "abc"}))
    assert (got["limit"], got["status"]) == (3, "sold")
    assert got["query"] == "limit=3&status=sold"
    assert got["x_request_id"] == "r-1"
    assert got["cookies"] == {"session": "abc"} and got["session"] == "abc"


def test_query_defaults_apply_when_the_model_leaves_them_out(service: str) -> None:
    got = echoed(run(tools_for(service), "listPets"))
    assert (got["query"], got["limit"], got["status"]) == ("", 10, "available")


def test_json_body_arrives_as_sent(service: str) -> None:
    pet = {"name": "Rex", "owner": {"name": "Ann", "email": "ann@example.org"}}
    got = echoed(run(tools_for(service), "createPet", body=pet))
    assert got["method"] == "POST"
    assert got["pet"] == {**pet, "tag": None}


def test_path_parameter_cannot_escape_its_segment(service: str) -> None:
    pets = tools_for(service)
    result = run(pets, "getPet", pet_id="../secret")
    assert openapi_app.RAW_PATHS[-1] == "/pets/..%2Fsecret"  # one segment, not /secret
    assert result.details["status"] == 404  # /secret would have answered 401
    dots = run(pets, "getPet", pet_id="..")
    assert isinstance(dots.error, InvalidArgs)
    assert "not a value for a path segment" in dots.text()
    assert openapi_app.RAW_PATHS[-1] == "/pets/..%2Fsecret"  # nothing was sent


def test_path_parameter_with_reserved_characters_is_percent_encoded(service: str) -> None:
    got = echoed(run(tools_for(service), "getPet", pet_id="a b?c#d"))
    assert got["raw_path"] == "/pets/a%20b%3Fc%23d"
    assert got["pet_id"] == "a b?c#d"


def test_header_and_cookie_values_cannot_add_headers_or_cookies(service: str) -> None:
    pets = tools_for(service)
    sent = len(openapi_app.RAW_PATHS)
    header = run(pets, "listPets", **{"x-request-id": "r\r\nAuthorization: Bearer forged"})
    cookie = run(pets, "listPets", session="abc; admin=1")
    assert isinstance(header.error, InvalidArgs) and "line breaks" in header.text()
    assert isinstance(cookie.error, InvalidArgs) and "';'" in cookie.text()
    assert len(openapi_app.RAW_PATHS) == sent  # neither was sent


def test_missing_path_parameter_is_invalid_args_even_unchecked(service: str) -> None:
    result = run(tools_for(service), "getPet", validate=False)
    assert isinstance(result.error, InvalidArgs)
    assert "pet_id: a path parameter is required" in result.text()


# -- errors ----------------------------------------------------------------------------------

def test_404_is_failed_saying_not_found(service: str) -> None:
    result = run(tools_for(service), "getPet", pet_id="missing")
    assert isinstance(result.error, Failed)
    assert "HTTP 404" in result.text() and "no pet missing" in result.text()
    assert "not found" in result.text()
    assert result.details["status"] == 404


def test_422_is_invalid_args_with_the_service_detail(service: str) -> None:
    pet = {"name": "taken", "owner": {"name": "Ann"}}
    result = run(tools_for(service), "createPet", body=pet)
    assert isinstance(result.error, InvalidArgs)
    assert "a pet named 'taken' exists already" in result.text()
    # the service's own validation, reached when the executor does not check the schema
    wrong = run(tools_for(service), "listPets", validate=False, limit="many")
    assert isinstance(wrong.error, InvalidArgs)
    assert "query.limit:" in wrong.text()


def test_rate_limit_is_rate_limited_with_retry_after(service: str) -> None:
    result = run(tools_for(service), "limited")
    assert isinstance(result.error, RateLimited)
    assert result.error.retry_after == 7.0
    assert "HTTP 429" in result.text() and "again in 7.0 s" in result.text()


def test_server_error_is_failed_with_the_body(service: str) -> None:
    result = run(tools_for(service), "boom")
    assert isinstance(result.error, Failed)
    assert "HTTP 503" in result.text() and "database unavailable" in result.text()


def test_connection_refused_is_failed() -> None:
    with socket.socket() as probe:  # a port nothing listens on once closed
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    closed = f"http://127.0.0.1:{port}"
    result = run(OpenApiTools(openapi_app.app.openapi(), server="pets", base_url=closed),
                 "getPet", pet_id="1")
    assert isinstance(result.error, Failed)
    assert "could not reach" in result.text()


def test_timeout_is_timed_out(service: str) -> None:
    result = run(tools_for(service, timeout=0.5), "slow")
    assert isinstance(result.error, TimedOut)
    assert result.error.seconds == 0.5


def test_cancel_token_cancels_the_request(service: str) -> None:
    registry = ToolRegistry()
    tools_for(service).install(registry)
    executor = Executor(registry, timeout=60)
    token = CancelToken()
    seen = len(openapi_app.RAW_PATHS)

    async def cancel_once_sent() -> None:
        deadline = time.monotonic() + 30
        while "/slow" not in openapi_app.RAW_PATHS[seen:] and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        token.cancel("the user stopped it")

    async def scenario() -> ToolResult:
        call = ToolCall(id="c1", name="pets__slow", arguments={}, source="native")
        batch, _ = await asyncio.gather(executor.run([call], cancel=token), cancel_once_sent())
        return batch.results[0]

    started = time.monotonic()
    result = asyncio.run(scenario())
    assert result.error is not None and result.error.kind == "cancelled"
    assert time.monotonic() - started < 19  # the 20 s answer was not waited for


def test_megabyte_text_is_truncated_to_result_limit(service: str) -> None:
    result = run(tools_for(service, result_limit=5_000), "bigText")
    assert not result.is_error
    assert len(result.text()) <= 5_000 and "characters left out" in result.text()
    assert result.details["full_size"] == 1_000_000


def test_megabyte_json_stays_json_when_truncated(service: str) -> None:
    result = run(tools_for(service, result_limit=5_000), "bigJson")
    first = result.content[0]
    assert isinstance(first, Json) and first.value[0] == "item 0000000"
    assert len(first.value) < 80_000
    assert isinstance(result.content[-1], Text)


# -- credentials and the allow-list ----------------------------------------------------------

def test_bearer_token_from_configuration_reaches_the_service(service: str) -> None:
    configured = tools_for(service, credentials={"HTTPBearer": openapi_app.TOKEN})
    got = echoed(run(configured, "readSecret"))
    assert got["authorization"] == f"Bearer {openapi_app.TOKEN}"


def test_missing_credentials_are_denied_saying_auth(service: str) -> None:
    result = run(tools_for(service), "readSecret")
    assert isinstance(result.error, Denied)
    assert "HTTP 401" in result.text() and "credentials" in result.text()


def test_credentials_go_only_to_operations_that_name_the_scheme(service: str) -> None:
    configured = tools_for(service, credentials={"HTTPBearer": openapi_app.TOKEN})
    assert echoed(run(configured, "listPets"))["authorization"] is None


def test_model_cannot_set_the_authorization_header(service: str) -> None:
    schema = {t.name: t.definition.parameters for t in tools_for(service).tools}["whoami"]
    assert schema["properties"] == {}  # its declared Authorization header is not offered
    refused = run(tools_for(service), "whoami", Authorization="Bearer forged")
    assert isinstance(refused.error, InvalidArgs)
    unchecked = run(tools_for(service), "whoami", validate=False,
                    Authorization="Bearer forged", authorization="Bearer forged")
    assert echoed(unchecked)["authorization"] is None
    configured = tools_for(service, auth=BearerAuth("real"))
    assert echoed(run(configured, "whoami", validate=False,
                      authorization="Bearer forged"))["authorization"] == "Bearer real"


def test_api_key_in_the_query_from_configuration_is_hidden_from_the_model(service: str) -> None:
    configured = tools_for(service, auth=ApiKeyAuth("limit", "99", "query"))
    schema = {t.name: t.definition.parameters for t in configured.tools}["listPets"]
    assert "limit" not in schema["properties"]
    got = echoed(run(configured, "listPets", validate=False, limit=1))
    assert got["limit"] == 99 and got["query"] == "limit=99"


def test_api_key_in_the_query_never_reaches_what_the_model_reads() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    configured = OpenApiTools(openapi_app.app.openapi(), server="pets",
                              base_url=f"http://127.0.0.1:{port}",
                              auth=ApiKeyAuth("key", "top-secret", "query"))
    result = run(configured, "getPet", pet_id="1")
    assert isinstance(result.error, Failed)
    assert "top-secret" not in result.text() and "top-secret" not in repr(result.details)
    assert "top-secret" not in repr(configured.tools[0])


def test_basic_auth_from_configuration(service: str) -> None:
    got = echoed(run(tools_for(service, auth=BasicAuth("ann", "pw")), "whoami"))
    assert got["authorization"] == "Basic YW5uOnB3"


def test_unknown_security_scheme_in_credentials_is_an_error(service: str) -> None:
    with pytest.raises(OpenApiError, match="securitySchemes are: HTTPBearer"):
        tools_for(service, credentials={"ApiKey": "x"})


def test_base_url_allow_list_refuses_another_host(service: str) -> None:
    elsewhere = service.replace("127.0.0.1", "localhost")
    configured = OpenApiTools(openapi_app.app.openapi(), server="pets", base_url=elsewhere,
                              allowed_urls=[service])
    sent = len(openapi_app.RAW_PATHS)
    result = run(configured, "getPet", pet_id="1")
    assert isinstance(result.error, Denied)
    assert "outside the allowed base URLs" in result.text()
    assert len(openapi_app.RAW_PATHS) == sent  # nothing reached the service


def test_document_url_off_loopback_is_refused() -> None:
    with pytest.raises(OpenApiError, match="not on this machine"):
        OpenApiTools("http://example.com/openapi.json", server="x")


def test_executor_never_raises_out_of_an_openapi_call(service: str) -> None:
    result = run(tools_for(service), "getPet", validate=False, pet_id={"nested": ["x"]})
    assert isinstance(result, ToolResult)
    assert echoed(result)["pet_id"] == '{"nested": ["x"]}'


def test_importing_the_runtime_and_the_cli_does_not_import_httpx() -> None:
    code = ("import sys, toolcalls.runtime, toolcalls.cli._main; "
            "toolcalls.runtime.OpenApiError; toolcalls.runtime.BearerAuth; "
            "print('httpx' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, check=True)
    assert done.stdout.strip() == "False"
