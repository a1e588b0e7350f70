"""The program of issue 29: orders parsed from CSV, joined with a small catalogue, summed per
user with ``reduceByKey``. One user's order carries a huge list of item notes whose parsing
costs tens of milliseconds (computation skew on one record). Lines are
``order id,user,product,quantity,notes`` with notes ``;``-separated."""

from __future__ import annotations

CATALOGUE = [("p0", 1.5), ("p1", 2.0), ("p2", 9.99), ("p3", 0.25), ("p4", 4.0)]


def parse(line: str) -> tuple[str, tuple[str, int, int]]:
    """``(product, (user, quantity, distinct notes))``: the notes cost time per note."""
    _, user, product, quantity, notes = line.split(",")
    return product, (user, int(quantity), len(set(notes.split(";"))))


def priced(joined) -> tuple[str, tuple[float, int]]:
    _, ((user, quantity, notes), price) = joined
    return user, (quantity * price, notes)


def add(a, b):
    return a[0] + b[0], a[1] + b[1]


def pipeline(ctx, input_path: str):
    orders = ctx.textFile(input_path).map(parse)
    prices = ctx.parallelize(CATALOGUE, 2)
    return orders.join(prices).map(priced).reduceByKey(add)


def generate(
    folder: str, files: int = 4, lines: int = 3000, hot_user: str = "u-hot", seed: int = 1
):
    """``files`` CSV files of ``lines`` orders by users u0..u19; the order of ``hot_user`` in
    file 1 has 400 000 notes. Returns the hot line."""
    import random
    from pathlib import Path

    Path(folder).mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    hot = f"o-hot,{hot_user},p2,3,{';'.join(f'n{i % 5000}' for i in range(400_000))}"
    for f in range(files):
        with open(Path(folder) / f"orders-{f}.csv", "w") as out:
            for n in range(lines):
                if f == 1 and n == lines // 2:
                    out.write(hot + "\n")
                user, product = f"u{rng.randrange(20)}", f"p{rng.randrange(5)}"
                out.write(f"o{f}-{n},{user},{product},{rng.randrange(1, 5)},a;b\n")
    return hot
