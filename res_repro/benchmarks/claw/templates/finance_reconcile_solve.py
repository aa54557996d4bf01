"""Reference program: reconcile a vendor's open invoices of one period against posted bank payments."""

# TARGET is defined by the task's constants; the shared helpers are appended after this program.
# ruff: noqa: F821


def posted_payments(call, invoice_id):
    """Cents paid on an invoice by posted transactions whose reference is its number."""
    found = items(call("search_bank_transactions", query=invoice_id))
    return sum(cents(t["amount"]) for t in found if t["reference"] == invoice_id and t["status"] == "posted")


def solve(call):
    """Reconcile, mark paid and disputed invoices, email the vendor, and report."""
    call = retrying(call)
    vendor = named(items(call("search_vendors", query=TARGET["vendor"])), "name", TARGET["vendor"])
    listed = items(call("list_invoices", vendor_id=vendor["vendor_id"], period=TARGET["period"]))
    outstanding, disputed = 0, []
    for summary in listed:
        if summary["status"] != "open":
            continue
        invoice = call("get_invoice", invoice_id=summary["invoice_id"])
        paid = posted_payments(call, invoice["invoice_id"])
        balance = cents(invoice["amount"]) - paid
        outstanding += balance
        if paid == 0:
            continue
        status = "paid" if balance == 0 else "disputed"
        call("update_invoice", invoice_id=invoice["invoice_id"], status=status)
        if status == "disputed":
            disputed.append(invoice["invoice_id"])
    call(
        "send_email",
        to=vendor["billing_email"],
        subject=f"Disputed invoices for {TARGET['period']}",
        body="The following invoices were short-paid and are disputed: " + ", ".join(disputed) + ".",
    )
    return f"OUTSTANDING: {money(outstanding)}\nDISPUTED: {', '.join(disputed)}"
