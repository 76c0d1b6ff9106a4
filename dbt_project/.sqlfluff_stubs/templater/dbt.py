"""Stand-ins for dbt's cross-database macros (``{{ dbt.x(...) }}``) so sqlfluff's jinja templater can render
the models without dbt. Each returns SQL shaped like dbt-duckdb's output; only the linter uses them."""


def type_string() -> str:
    return "varchar"


def type_bigint() -> str:
    return "bigint"


def type_int() -> str:
    return "integer"


def type_timestamp() -> str:
    return "timestamp"


def type_boolean() -> str:
    return "boolean"


def concat(fields: list) -> str:
    return " || ".join(str(f) for f in fields)


def hash(field: str) -> str:
    return f"md5(cast({field} as varchar))"


def split_part(string_text: str, delimiter_text: str, part_number: int) -> str:
    return f"split_part({string_text}, {delimiter_text}, {part_number})"


def safe_cast(field: str, type_: str) -> str:
    return f"cast({field} as {type_})"


def datediff(first_date: str, second_date: str, datepart: str) -> str:
    return f"date_diff('{datepart}', {first_date}, {second_date})"


def dateadd(datepart: str, interval: object, from_date_or_timestamp: str) -> str:
    return f"({from_date_or_timestamp} + cast({interval} as bigint) * interval 1 {datepart})"


def length(expression: str) -> str:
    return f"length({expression})"


def right(string_text: str, length_expression: object) -> str:
    return f"right({string_text}, {length_expression})"


def replace(field: str, old_chars: str, new_chars: str) -> str:
    return f"replace({field}, {old_chars}, {new_chars})"


def generate_series(upper_bound: int) -> str:
    return f"select generate_series as generated_number from generate_series(1, {upper_bound})"
