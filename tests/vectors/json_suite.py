#!/usr/bin/env python3
"""Builds tests/vectors/json_suite.json from a checkout of the public JSONTestSuite
(https://github.com/nst/JSONTestSuite, MIT License, Copyright (c) 2016 Nicolas Seriot):
every file of its test_parsing/ folder, as data. `y_` files are JSON every parser must
accept, `n_` files are not JSON, `i_` files are left to the parser (tests/vectors.rs holds
ours to serde_json's decision there).

Usage: python3 tests/vectors/json_suite.py JSONTestSuite_DIR COMMIT

The `i_` files' decisions are serde_json's (strings decoded, numbers kept as text), as
tests/common/json_reference.rs reads them; they are kept in I_DECISIONS below, and
tests/vectors.rs checks on every run that the reference still decides each as written.
"""
import json
import os
import sys


I_DECISIONS = {
    "i_number_double_huge_neg_exp.json": "json",
    "i_number_huge_exp.json": "json",
    "i_number_neg_int_huge_exp.json": "json",
    "i_number_pos_double_huge_exp.json": "json",
    "i_number_real_neg_overflow.json": "json",
    "i_number_real_pos_overflow.json": "json",
    "i_number_real_underflow.json": "json",
    "i_number_too_big_neg_int.json": "json",
    "i_number_too_big_pos_int.json": "json",
    "i_number_very_big_negative_int.json": "json",
    "i_object_key_lone_2nd_surrogate.json": "not_json",
    "i_string_1st_surrogate_but_2nd_missing.json": "not_json",
    "i_string_1st_valid_surrogate_2nd_invalid.json": "not_json",
    "i_string_UTF-16LE_with_BOM.json": "not_json",
    "i_string_UTF-8_invalid_sequence.json": "not_json",
    "i_string_UTF8_surrogate_U+D800.json": "not_json",
    "i_string_incomplete_surrogate_and_escape_valid.json": "not_json",
    "i_string_incomplete_surrogate_pair.json": "not_json",
    "i_string_incomplete_surrogates_escape_valid.json": "not_json",
    "i_string_invalid_lonely_surrogate.json": "not_json",
    "i_string_invalid_surrogate.json": "not_json",
    "i_string_invalid_utf-8.json": "not_json",
    "i_string_inverted_surrogates_U+1D11E.json": "not_json",
    "i_string_iso_latin_1.json": "not_json",
    "i_string_lone_second_surrogate.json": "not_json",
    "i_string_lone_utf8_continuation_byte.json": "not_json",
    "i_string_not_in_unicode_range.json": "not_json",
    "i_string_overlong_sequence_2_bytes.json": "not_json",
    "i_string_overlong_sequence_6_bytes.json": "not_json",
    "i_string_overlong_sequence_6_bytes_null.json": "not_json",
    "i_string_truncated-utf-8.json": "not_json",
    "i_string_utf16BE_no_BOM.json": "not_json",
    "i_string_utf16LE_no_BOM.json": "not_json",
    "i_structure_500_nested_arrays.json": "not_json",
    "i_structure_UTF-8_BOM_empty_object.json": "not_json",
}


def main():
    src, commit = sys.argv[1], sys.argv[2]
    folder = os.path.join(src, "test_parsing")
    tests = []
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".json") or name[:2] not in ("y_", "n_", "i_"):
            continue
        with open(os.path.join(folder, name), "rb") as f:
            data = f.read()
        kind = name[:2]
        case = {"name": name, "expect": I_DECISIONS[name] if kind == "i_" else {"y_": "json", "n_": "not_json"}[kind]}
        if kind == "i_":
            case["flags"] = ["ImplementationDefined"]
        try:
            case["text"] = data.decode("utf-8")
        except UnicodeDecodeError:
            case["hex"] = data.hex()
        tests.append(case)
    out = {
        "source": f"https://github.com/nst/JSONTestSuite, test_parsing/ at {commit}",
        "license": "MIT License, Copyright (c) 2016 Nicolas Seriot (the test files are data, "
        "vendored unchanged: a file is `text` when it is UTF-8, else `hex`)",
        "schema": "cryptopay-verify-json-suite/1",
        "notes": "expect: json (y_ files, and i_ files serde_json accepts: parsed as JSON, a repeated "
        "key reported as such) or not_json (n_ files, and i_ files serde_json refuses: "
        "event_not_json). i_ files are flagged ImplementationDefined.",
        "tests": tests,
    }
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "json_suite.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(out, f, ensure_ascii=True, indent=0)
        f.write("\n")
    print(f"{path}: {len(tests)} files")


main()
