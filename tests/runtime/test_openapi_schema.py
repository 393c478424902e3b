"""Reading OpenAPI documents into tool definitions: names, argument schemas, $refs, skips.

The two fixture documents (fixtures/openapi/, written for these tests) hold what FastAPI's own
documents, read in test_openapi.py, never do: OpenAPI 3.0, server variables, recursive schemas,
shared parameters, API keys in headers and queries."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from toolcalls.runtime import OpenApiError, OpenApiTools
from toolcalls.runtime._openapi_load import load_document
from toolcalls.runtime._openapi_schema import Argument, OpenApiSpec, read_document

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "openapi"


def spec_of(name: str, **options: Any) -> OpenApiSpec:
    return read_document(load_document(FIXTURES / name), **options)


def schemas(spec: OpenApiSpec) -> dict[str, dict[str, Any]]:
    return {op.definition.name: op.definition.parameters for op in spec.operations}


def minimal(**paths: Any) -> dict[str, Any]:
    return {"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": paths}


# -- the 3.0 and 3.1 fixture documents -------------------------------------------------------

def test_openapi_30_document_becomes_these_tools() -> None:
    spec = spec_of("library-3.0.json")
    assert [op.definition.name for op in spec.operations] == [
        "list-books", "addBook", "get_categories_id", "list-books_2"]
    assert [(s.path, s.reason) for s in spec.skipped] == [
        ("/login", "its request body is not JSON (application/x-www-form-urlencoded)")]
    assert spec.servers == ("https://books.test/api/v2",)


def test_openapi_31_document_becomes_these_tools() -> None:
    spec = spec_of("notes-3.1.json")
    assert [op.definition.name for op in spec.operations] == ["searchNotes", "createNote"]
    assert [(s.name, s.reason) for s in spec.skipped] == [("deleteNote", "deprecated")]
    create = schemas(spec)["createNote"]
    assert set(create["properties"]) == {"query_body", "theme", "body"}
    note = create["properties"]["body"]
    assert note["description"] == "The note, as its author wrote it"  # a $ref's sibling
    assert note["properties"]["due"]["type"] == ["string", "null"]
    assert note["properties"]["kind"] == {"const": "note"}


def test_operation_level_parameter_overrides_the_path_items() -> None:
    listing = schemas(spec_of("library-3.0.json"))["list-books"]
    assert listing["properties"]["shelfId"] == {
        "type": "string", "description": "The shelf's code, such as A12"}
    assert schemas(spec_of("library-3.0.json"))["addBook"]["properties"]["shelfId"] == {
        "type": "integer"}  # from the path item's $ref parameter


def test_same_name_in_path_and_query_gets_two_arguments() -> None:
    (operation,) = [op for op in spec_of("library-3.0.json").operations
                    if op.definition.name == "get_categories_id"]
    assert operation.arguments == (Argument("id", "path", "id"),
                                   Argument("query_id", "query", "id"))


def test_parameters_that_carry_credentials_are_not_exposed() -> None:
    listing = schemas(spec_of("library-3.0.json"))["list-books"]
    assert "X-Api-Key" not in listing["properties"]  # the securityScheme's header
    search = schemas(spec_of("notes-3.1.json"))["searchNotes"]
    assert "api_key" not in search["properties"]  # the securityScheme's query key
    assert set(search["properties"]) == {"q", "filter_tag_", "where"}


def test_hidden_parameters_from_configuration_are_not_exposed() -> None:
    search = schemas(spec_of("notes-3.1.json", hidden=[("query", "q")]))["searchNotes"]
    assert "q" not in search["properties"] and "required" not in search


def test_nullable_and_openapi_only_keywords_become_json_schema() -> None:
    book = schemas(spec_of("library-3.0.json"))["addBook"]["properties"]["body"]
    assert book["properties"]["isbn"] == {"type": ["string", "null"]}
    assert book["properties"]["title"] == {"type": "string"}  # example dropped
    assert "xml" not in book


def test_recursive_ref_becomes_a_permissive_schema() -> None:
    category = schemas(spec_of("library-3.0.json"))["list-books_2"]["properties"]["body"]
    assert category["properties"]["children"]["items"] == {
        "description": "a Category (recursive: any value accepted here)"}
    for document in ("library-3.0.json", "notes-3.1.json"):
        assert "$ref" not in json.dumps(schemas(spec_of(document)))


def test_body_is_one_body_argument_keeping_required() -> None:
    add = schemas(spec_of("library-3.0.json"))["addBook"]
    assert add["required"] == ["shelfId", "body"]
    assert add["properties"]["body"]["required"] == ["title"]
    assert add["additionalProperties"] is False


def test_filters_by_tag_and_operation_id() -> None:
    spec = spec_of("notes-3.1.json", include=["notes", "deleteNote"], exclude=["searchNotes"],
                   include_deprecated=True)
    assert [op.definition.name for op in spec.operations] == ["createNote", "deleteNote"]


# -- names -----------------------------------------------------------------------------------

def test_operation_id_is_sanitized_to_the_registry_rules() -> None:
    document = minimal(**{"/a": {"get": {"operationId": "1 list items/all!", "responses": {}}}})
    (operation,) = read_document(document).operations
    assert operation.definition.name == "list_items_all_"


def test_name_clash_gets_a_suffix_and_no_operation_id_is_method_path() -> None:
    document = minimal(**{"/pets/{id}": {"get": {"responses": {}},
                                         "put": {"operationId": "get_pets_id",
                                                 "responses": {}}}})
    names = [op.definition.name for op in read_document(document).operations]
    assert names == ["get_pets_id", "get_pets_id_2"]


def test_long_operation_id_is_cut_to_64_with_a_unique_suffix() -> None:
    long_id = "x" * 80
    document = minimal(**{"/a": {"get": {"operationId": long_id, "responses": {}}},
                          "/b": {"get": {"operationId": long_id, "responses": {}}}})
    names = [op.definition.name for op in read_document(document).operations]
    assert names == ["x" * 64, "x" * 62 + "_2"]


# -- errors ----------------------------------------------------------------------------------

def test_not_openapi_is_an_error() -> None:
    with pytest.raises(OpenApiError, match="not an OpenAPI 3.x document"):
        load_document({"swagger": "2.0", "paths": {}})


def test_bad_json_file_is_an_error(tmp_path: Path) -> None:
    broken = tmp_path / "api.json"
    broken.write_text("openapi: 3.1.0\n")
    with pytest.raises(OpenApiError, match="is not JSON"):
        load_document(broken)


def test_missing_file_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(OpenApiError, match="cannot read"):
        load_document(tmp_path / "nowhere.json")


def test_external_ref_is_an_error_naming_it() -> None:
    document = minimal(**{"/a": {"post": {"requestBody": {"content": {"application/json": {
        "schema": {"$ref": "other.json#/Thing"}}}}, "responses": {}}}})
    with pytest.raises(OpenApiError, match="other.json#/Thing"):
        read_document(document)


def test_relative_server_without_base_url_is_an_error() -> None:
    with pytest.raises(OpenApiError, match="give base_url"):
        OpenApiTools(FIXTURES / "notes-3.1.json", server="notes")
    built = OpenApiTools(FIXTURES / "notes-3.1.json", server="notes",
                         base_url="http://127.0.0.1:9/v1")
    assert [tool.name for tool in built.tools] == ["searchNotes", "createNote"]


def test_credentials_map_to_the_documents_security_schemes() -> None:
    built = OpenApiTools(FIXTURES / "library-3.0.json", server="library",
                         credentials={"ApiKeyHeader": "k-1"})
    (operation,) = [t for t in built.tools if t.name == "addBook"]
    request = operation.body.request({"shelfId": 3, "body": {"title": "Dune"}},  # type: ignore[attr-defined]
                                     "addBook")
    assert str(request.url) == "https://books.test/api/v2/shelves/3/books"
    assert request.headers["X-Api-Key"] == "k-1"
    assert json.loads(request.content) == {"title": "Dune"}
    (login,) = [s for s in built.skipped if s.name == "login"]
    assert login.method == "POST"
